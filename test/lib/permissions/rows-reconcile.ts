/**
 * Matrix rows of the scheduled reconcile function (config `reconcile.enabled`): every call a run makes, on what the
 * function's environment names (the log groups, the raw stream, the bucket, the domain), and what it must never do.
 */
import type { ReconcileJobEnv } from '../../../core/contracts/reconcile-env';
import type { AppModel, AppResource, Call } from '../../helpers/permission-matrix';
import {
  TLS,
  DAY,
  caller,
  domainCall,
  domainOf,
  env,
  s3Object,
  bucketKeyCalls,
  stream,
  writeCalls,
  type Row,
} from './calls';

const hasReconcile = (v: { readonly reconcile: boolean }): boolean => v.reconcile;

function reconcile(m: AppModel): { fn: AppResource; role: AppResource; job: ReconcileJobEnv } {
  const fn = m.find('Pipeline/Reconcile/Function', 'AWS::Lambda::Function');
  return { fn, role: m.functionRole(fn), job: JSON.parse(env(fn, 'KFEK_RECONCILE')) as ReconcileJobEnv };
}

function logGroupCall(
  m: AppModel,
  who: AppResource,
  name: string,
  action: string,
  expect: Call['expect'],
): Call {
  return {
    ...caller(m, who),
    action,
    resource: `log group ${name}`,
    resourceArn: `arn:aws:logs:${m.region}:${m.account}:log-group:${name}`,
    expect,
  };
}

function bucketOf(m: AppModel, job: ReconcileJobEnv): AppResource {
  return m.byValue('AWS::S3::Bucket', job.bucket);
}

function listCall(
  m: AppModel,
  who: AppResource,
  bucket: AppResource,
  prefix: string,
  expect: Call['expect'],
): Call {
  return {
    ...caller(m, who),
    action: 's3:ListBucket',
    resource: `${bucket.path} (prefix ${prefix})`,
    resourceArn: m.attr(bucket),
    resourcePolicy: m.bucketPolicy(bucket),
    context: { ...TLS, 's3:TlsVersion': '1.3', 's3:prefix': prefix },
    expect,
  };
}

/** The domain of the function's OpenSearch URL. */
function domainOfJob(m: AppModel, job: ReconcileJobEnv): AppResource {
  const endpoint = job.openSearchUrl.replace(/^https:\/\//, '');
  const domain = m
    .findAll('AWS::OpenSearchService::Domain')
    .find((d) => m.attr(d, 'DomainEndpoint') === endpoint);
  if (domain === undefined) throw new Error(`no domain has the endpoint ${endpoint}`);
  return domainOf(m, m.attr(domain));
}

export const RECONCILE_ROWS: readonly Row[] = [
  {
    name: 'reconcile | logs:FilterLogEvents, StartQuery, DescribeSubscriptionFilters | each log group it reconciles | identity',
    when: hasReconcile,
    calls: (m) => {
      const { role, job } = reconcile(m);
      return job.logGroups.flatMap((g) =>
        ['logs:FilterLogEvents', 'logs:StartQuery', 'logs:DescribeSubscriptionFilters'].map((a) =>
          logGroupCall(m, role, g.name, a, 'Allowed'),
        ),
      );
    },
  },
  {
    name: 'reconcile | logs:GetQueryResults, StopQuery | (no resource: the query id) | identity',
    when: hasReconcile,
    calls: (m) => {
      const { role } = reconcile(m);
      return ['logs:GetQueryResults', 'logs:StopQuery'].map((action) => ({
        ...caller(m, role),
        action,
        resource: '*',
        resourceArn: '*',
        expect: 'Allowed' as const,
      }));
    },
  },
  {
    name: 'reconcile | kinesis:PutRecord(s), kms:GenerateDataKey | raw stream (rawStreamArn), its key | identity, key',
    when: hasReconcile,
    calls: (m) => {
      const { role, job } = reconcile(m);
      return writeCalls(m, role, stream(m, job.rawStreamArn));
    },
  },
  {
    name: 'reconcile | s3:GetObject, s3:ListBucket (kept prefixes), kms:Decrypt | failed-records bucket, its key | identity, bucket policy, key',
    when: hasReconcile,
    calls: (m) => {
      const { role, job } = reconcile(m);
      const bucket = bucketOf(m, job);
      const prefixes = [job.deadLetterPrefix, 'aws/lambda/', job.failedDocumentsPrefix];
      return [
        ...prefixes.map((p) => s3Object(m, role, bucket, `${p}${DAY}/10/x.gz`, 's3:GetObject', 'Allowed')),
        ...prefixes.map((p) => listCall(m, role, bucket, p, 'Allowed')),
        ...bucketKeyCalls(m, role, bucket, ['kms:Decrypt']),
      ];
    },
  },
  {
    name: "reconcile | es:ESHttpPost _mget and _search, es:ESHttpGet (and kfek's templates and record) | domain of its OpenSearch URL | identity, domain access policy",
    when: hasReconcile,
    calls: (m) => {
      const { role, job } = reconcile(m);
      const domain = domainOfJob(m, job);
      const c = caller(m, role);
      return [
        domainCall(m, c, domain, 'es:ESHttpPost', '_mget'),
        domainCall(m, c, domain, 'es:ESHttpPost', `${job.indexPrefix}-*/_search`),
        domainCall(m, c, domain, 'es:ESHttpGet', `${job.indexPrefix}-*/_search`),
        // kept-stems.ts: the stems kfek keeps, from the templates kfek's record vouches for (fine-grained access
        // control narrows both to the kfek_reconcile role's template listing and the record's one document)
        domainCall(m, c, domain, 'es:ESHttpGet', '_index_template/kfek-*'),
        domainCall(m, c, domain, 'es:ESHttpGet', '.kfek-registry/_doc/objects'),
      ];
    },
  },
];

export const RECONCILE_DENY_ROWS: readonly Row[] = [
  {
    name: 'reconcile cannot read other log groups, write the events stream, change kept data or the domain',
    when: hasReconcile,
    calls: (m) => {
      const { role, job } = reconcile(m);
      const bucket = bucketOf(m, job);
      const events = m.find('Search/EventsStream', 'AWS::Kinesis::Stream');
      const domain = domainOfJob(m, job);
      const c = caller(m, role);
      return [
        logGroupCall(m, role, '/aws/lambda/someone-else', 'logs:FilterLogEvents', 'Denied'),
        logGroupCall(m, role, '/aws/lambda/someone-else', 'logs:StartQuery', 'Denied'),
        logGroupCall(m, role, job.logGroups[0].name, 'logs:DeleteLogGroup', 'Denied'),
        ...['kinesis:PutRecord', 'kinesis:PutRecords'].map((action): Call => ({
          ...c,
          action,
          resource: events.path,
          resourceArn: m.attr(events),
          expect: 'Denied',
        })),
        s3Object(m, role, bucket, `${job.failedDocumentsPrefix}${DAY}/10/x.gz`, 's3:DeleteObject', 'Denied'),
        s3Object(m, role, bucket, `${job.deadLetterPrefix}${DAY}/x.json`, 's3:PutObject', 'Denied'),
        s3Object(m, role, bucket, 'elsewhere/x', 's3:GetObject', 'Denied'),
        listCall(m, role, bucket, 'elsewhere/', 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpPut', `${job.indexPrefix}-2026-11-23/_doc/1`, 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpDelete', `${job.indexPrefix}-2026-11-23`, 'Denied'),
      ];
    },
  },
];
