/**
 * The OpenSearch provisioner's spec as a template carries it (the `Spec` property of the
 * `Custom::KfekOpenSearchProvisioning` resource: the spec's JSON, joined with references such as the Firehose role's
 * ARN), read the same way from the synthesized template (what the deploy will apply) and the deployed one (what the
 * last deploy applied), and what else the domain plan needs from the templates: the Firehose rotation and the data
 * node count. Pure.
 */
import type { CfnTemplate } from './types';
import { IndexerEnvVar } from '../contracts/indexer-env';
import { resolveOpenSearchSpec, type OpenSearchSpec, type OpenSearchSpecInput } from '../opensearch/spec';

type Json = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Json =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};

export const PROVISIONER_TYPE = 'Custom::KfekOpenSearchProvisioning';

/**
 * The value a reference stands for: the deployed stack's output with the same value expression (the Pipeline stack
 * outputs `FirehoseRoleArn`, the role's `Fn::GetAtt`), else a placeholder naming it. The same reference in the
 * synthesized and the deployed template gives the same text, so it is no change.
 */
export type ReferenceValues = ReadonlyMap<string, string>;

/** `{"Fn::GetAtt":["Role","Arn"]}` -> its key in {@link ReferenceValues}. */
export const referenceKey = (ref: unknown): string => JSON.stringify(ref);

/** Deployed output values by the expression they output, for {@link provisionerSpecOf}. */
export function outputReferences(
  template: CfnTemplate | undefined,
  values: Readonly<Record<string, string>>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, output] of Object.entries(template?.Outputs ?? {})) {
    const value = values[key];
    if (value === undefined) continue;
    out.set(referenceKey(output.Value), value);
    for (const [ref, pseudo] of pseudoParametersOf(output.Value, value)) out.set(ref, pseudo);
  }
  return out;
}

/**
 * The pseudo parameters (`AWS::Partition`, `AWS::AccountId`) an output joins with literals, read back from its
 * deployed value: the indexer's fixed-name ARN (the `IndexerRoleArn` output) is such a join, and CDK inlines its
 * parts into the provisioner's spec, so the spec is resolved part by part.
 */
function pseudoParametersOf(expression: unknown, value: string): Array<[string, string]> {
  const join = obj(expression)['Fn::Join'];
  if (!Array.isArray(join) || join[0] !== '' || !Array.isArray(join[1])) return [];
  const parts = join[1] as unknown[];
  const refs: string[] = [];
  let pattern = '';
  for (const part of parts) {
    const ref = obj(part).Ref;
    if (typeof part === 'string') pattern += part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (typeof ref === 'string' && ref.startsWith('AWS::')) {
      refs.push(referenceKey(part));
      pattern += '([^:]*)';
    } else return [];
  }
  const match = new RegExp(`^${pattern}$`).exec(value);
  return match === null ? [] : refs.map((ref, i): [string, string] => [ref, match[i + 1]]);
}

function render(value: unknown, refs: ReferenceValues): string {
  if (typeof value === 'string') return value;
  const join = obj(value)['Fn::Join'];
  if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
    return (join[1] as unknown[]).map((part) => render(part, refs)).join(join[0]);
  }
  return refs.get(referenceKey(value)) ?? `<${JSON.stringify(value).replace(/["\\]/g, '')}>`;
}

/** The spec input the template's provisioner applies; undefined when the template has none. */
export function provisionerSpecInputOf(
  template: CfnTemplate | undefined,
  refs: ReferenceValues = new Map(),
): OpenSearchSpecInput | undefined {
  for (const r of Object.values(template?.Resources ?? {})) {
    if (r.Type !== PROVISIONER_TYPE) continue;
    return JSON.parse(render(r.Properties?.Spec, refs)) as OpenSearchSpecInput;
  }
  return undefined;
}

/** The resolved spec, or why it cannot be read. */
export function provisionerSpecOf(
  template: CfnTemplate | undefined,
  refs: ReferenceValues = new Map(),
): OpenSearchSpec | undefined {
  const input = provisionerSpecInputOf(template, refs);
  return input === undefined ? undefined : resolveOpenSearchSpec(input);
}

/**
 * The rotation the template's delivery writes with: `IndexRotationPeriod` of its Firehose delivery stream to
 * OpenSearch, or with `delivery.mode: direct` the indexer function's `INDEX_ROTATION`.
 */
export function indexRotationOf(template: CfnTemplate | undefined): string | undefined {
  for (const r of Object.values(template?.Resources ?? {})) {
    const rotation =
      r.Type === 'AWS::KinesisFirehose::DeliveryStream'
        ? obj(r.Properties?.AmazonopensearchserviceDestinationConfiguration).IndexRotationPeriod
        : r.Type === 'AWS::Lambda::Function'
          ? obj(obj(r.Properties?.Environment).Variables)[IndexerEnvVar.IndexRotation]
          : undefined;
    if (typeof rotation === 'string') return rotation;
  }
  return undefined;
}
