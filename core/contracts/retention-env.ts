/**
 * The scheduled Serverless retention function's environment and metrics (issue 42, docs/serverless.md): a contract
 * between the Search stack that writes it (lib/constructs/serverless-retention.ts, values may be CDK tokens), the
 * function that reads it once per container (lambda/serverless-retention/handler.ts) and the alarms and dashboard
 * that read its metrics (lib/constructs/monitoring/retention.ts). One writer, one reader.
 */
import type { IndexRotation } from './index-naming';

/** The rotations whose index names carry a date, so an index's age can be read from its name. */
const DATED_ROTATIONS: readonly IndexRotation[] = ['OneHour', 'OneDay', 'OneWeek', 'OneMonth'];

export const RetentionEnvVar = {
  /** The collection's endpoint, `https://<id>.<region>.aoss.amazonaws.com`. */
  CollectionUrl: 'COLLECTION_URL',
  /** The families as JSON: `[{ "stem": "logs", "retentionDays": 14 }, ...]`. */
  Families: 'RETENTION_FAMILIES',
  /** Config `delivery.indexRotation`: how kfek names the indices. */
  IndexRotation: 'INDEX_ROTATION',
  /** Powertools' own variable: the CloudWatch namespace of the EMF metrics. */
  MetricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** Powertools' own variable: the `service` dimension of its metrics and log lines. */
  ServiceName: 'POWERTOOLS_SERVICE_NAME',
} as const;

/** The `service` dimension of the retention function's metrics (the alarms and the dashboard select on it). */
export const RETENTION_SERVICE_NAME = 'retention';

export const RetentionMetricName = {
  /** kfek's indices past retention deleted in a run. */
  DeletedIndices: 'RetentionDeletedIndices',
  /**
   * What a run could not do: one per index whose deletion failed or was refused, one when the listing itself failed
   * or was refused (the whole run then deleted nothing). Every run publishes it, 0 when all went well.
   */
  Failures: 'RetentionFailures',
} as const;

/** A family of kfek's indices: its stem and how many days past its period an index is kept. */
export interface RetentionFamilyEnv {
  readonly stem: string;
  readonly retentionDays: number;
}

export interface RetentionSettings {
  readonly collectionUrl: string;
  readonly families: readonly RetentionFamilyEnv[];
  readonly indexRotation: IndexRotation;
  readonly metricsNamespace: string;
}

/** A variable missing or malformed: the function cannot run (the stack wrote something it cannot read). */
export class RetentionEnvironmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetentionEnvironmentError';
  }
}

/** The function's environment variables: the one writer of {@link RetentionEnvVar}. */
export function retentionEnvironment(s: RetentionSettings): Record<string, string> {
  return {
    [RetentionEnvVar.CollectionUrl]: s.collectionUrl,
    [RetentionEnvVar.Families]: JSON.stringify(
      s.families.map(({ stem, retentionDays }) => ({ stem, retentionDays })),
    ),
    [RetentionEnvVar.IndexRotation]: s.indexRotation,
    [RetentionEnvVar.MetricsNamespace]: s.metricsNamespace,
    [RetentionEnvVar.ServiceName]: RETENTION_SERVICE_NAME,
  };
}

function isFamily(value: unknown): value is RetentionFamilyEnv {
  const f = value as Partial<RetentionFamilyEnv> | null;
  return (
    typeof f === 'object' &&
    f !== null &&
    typeof f.stem === 'string' &&
    f.stem !== '' &&
    Number.isInteger(f.retentionDays) &&
    (f.retentionDays ?? 0) >= 1
  );
}

/** Reads what {@link retentionEnvironment} wrote; anything else is refused with the variable and its value. */
export function readRetentionEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): RetentionSettings {
  const need = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === '') {
      throw new RetentionEnvironmentError(`${name} is not set: redeploy the Search stack, which writes it`);
    }
    return value;
  };
  const url = need(RetentionEnvVar.CollectionUrl);
  if (!/^https?:\/\/[^/]+$/.test(url)) {
    throw new RetentionEnvironmentError(
      `${RetentionEnvVar.CollectionUrl} is ${JSON.stringify(url)}, not a collection endpoint (https://<host>)`,
    );
  }
  const text = need(RetentionEnvVar.Families);
  let families: unknown;
  try {
    families = JSON.parse(text);
  } catch {
    families = undefined;
  }
  if (!Array.isArray(families) || families.length === 0 || !families.every(isFamily)) {
    throw new RetentionEnvironmentError(
      `${RetentionEnvVar.Families} is ${JSON.stringify(text.slice(0, 200))}: it must be a non-empty JSON list of ` +
        '{ "stem": "<index stem>", "retentionDays": <whole days, 1 or more> }',
    );
  }
  const rotation = need(RetentionEnvVar.IndexRotation);
  if (!(DATED_ROTATIONS as readonly string[]).includes(rotation)) {
    throw new RetentionEnvironmentError(
      `${RetentionEnvVar.IndexRotation} is ${JSON.stringify(rotation)}: retention by name needs a dated rotation ` +
        `(${DATED_ROTATIONS.join(', ')})`,
    );
  }
  return {
    collectionUrl: url,
    families,
    indexRotation: rotation as IndexRotation,
    metricsNamespace: env[RetentionEnvVar.MetricsNamespace] ?? 'kfek',
  };
}
