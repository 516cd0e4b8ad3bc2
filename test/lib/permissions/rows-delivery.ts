/**
 * Matrix rows from the events stream to OpenSearch: Firehose (trust, source, domain, failed documents, logs),
 * the provisioner, and the people who read the domain.
 */
import type { Call } from '../../helpers/permission-matrix';
import {
  INDEX,
  userPolicy,
  stream,
  caller,
  readCalls,
  assume,
  s3Object,
  s3Bucket,
  bucketKeyCalls,
  domainOf,
  domainCall,
  firehose,
  indexer,
  indexerPipeline,
  type Row,
  viaFirehose,
  viaIndexer,
} from './calls';

/** Requests on objects that are not kfek's: the provisioner's policy refuses every one (issue 39). */
const NOT_KFEKS: readonly [string, string][] = [
  ['es:ESHttpDelete', '_plugins/_security/api/rolesmapping/all_access'],
  ['es:ESHttpDelete', '_plugins/_security/api/rolesmapping/opensearch_dashboards_user'],
  ['es:ESHttpDelete', '_plugins/_security/api/rolesmapping/team_reader'],
  ['es:ESHttpDelete', '_plugins/_security/api/roles/team_reader'],
  ['es:ESHttpDelete', '_plugins/_security/api/roles/all_access'],
  ['es:ESHttpDelete', '_index_template/team-logs'],
  ['es:ESHttpDelete', '_ingest/pipeline/team-pipeline'],
  ['es:ESHttpDelete', '_plugins/_ism/policies/team-retention'],
  ['es:ESHttpDelete', '_dashboards/api/saved_objects/index-pattern/team-index-pattern'],
  ['es:ESHttpDelete', '_dashboards/api/saved_objects/dashboard/0b1e9a8e-4c1d-4f7e-9a2b-3c4d5e6f7a8b'],
  ['es:ESHttpDelete', '_plugins/_security/api/internalusers/admin'],
  ['es:ESHttpDelete', 'victim'],
  // A list is never one of kfek's names (request-path.ts refuses a ',' in any name): a delete of one is refused
  // even where each part would be kfek's.
  ['es:ESHttpDelete', '_index_template/kfek-a,victim'],
  ['es:ESHttpDelete', '_plugins/_security/api/roles/kfek_a,team_reader'],
  ['es:ESHttpDelete', '_plugins/_ism/policies/kfek-a%2cteam-retention'],
  ['es:ESHttpDelete', '.kfek-registry'],
  ['es:ESHttpPut', '.kfek-registryx'],
  ['es:ESHttpPut', '_plugins/_security/api/rolesmapping/team_reader'],
  ['es:ESHttpPut', '_plugins/_security/api/roles/team_reader'],
  ['es:ESHttpPut', '_plugins/_security/api/internalusers/intruder'],
  ['es:ESHttpPut', '_plugins/_security/api/nodesdn/x'],
  ['es:ESHttpPut', '_index_template/team-logs'],
  ['es:ESHttpPut', '_ingest/pipeline/team-pipeline'],
  ['es:ESHttpPut', '_plugins/_ism/policies/team-retention'],
  ['es:ESHttpPut', 'victim/_settings'],
  ['es:ESHttpPut', '_cluster/settings'],
  ['es:ESHttpPut', 'victim'],
  ['es:ESHttpPost', 'victim/_delete_by_query'],
  ['es:ESHttpPost', '_dashboards/api/saved_objects/index-pattern/team-index-pattern'],
  ['es:ESHttpPost', '_snapshot/repo/snap/_restore'],
];

export const DELIVERY_ROWS: readonly Row[] = [
  {
    name: 'indexer | es:ESHttpPost _bulk (with ?pipeline=_none, the same resource) | domain | identity, domain access policy',
    when: viaIndexer,
    calls: (m) => {
      const { fn, role } = indexer(m);
      const endpoint = (fn.properties.Environment as { Variables: Record<string, string> }).Variables
        .OPENSEARCH_ENDPOINT;
      const domain = m.findAll('AWS::OpenSearchService::Domain')[0];
      expect(endpoint).toMatch(/^https:\/\//);
      return [domainCall(m, caller(m, role), domain, 'es:ESHttpPost', '_bulk')];
    },
  },
  {
    name: 'indexer | es:ESHttpGet _ingest/pipeline/<KFEK_INGEST_PIPELINE> (its route table) | domain | identity, domain access policy',
    when: viaIndexer,
    calls: (m) => {
      const { role } = indexer(m);
      const pipeline = indexerPipeline(m);
      const domain = m.findAll('AWS::OpenSearchService::Domain')[0];
      expect(pipeline).toMatch(/^kfek-[a-z0-9._-]+-document-id$/);
      return [domainCall(m, caller(m, role), domain, 'es:ESHttpGet', `_ingest/pipeline/${pipeline}`)];
    },
  },
  {
    name: 'indexer | s3:PutObject, kms:GenerateDataKey | failed-documents prefix of FAILED_DOCUMENTS_BUCKET, its key | identity, bucket policy, key',
    when: viaIndexer,
    calls: (m) => {
      const { fn, role } = indexer(m);
      const env = (fn.properties.Environment as { Variables: Record<string, string> }).Variables;
      const bucket = m.byValue('AWS::S3::Bucket', env.FAILED_DOCUMENTS_BUCKET);
      return [
        s3Object(
          m,
          role,
          bucket,
          `${env.FAILED_DOCUMENTS_PREFIX}2026/11/23/10/kfek-indexer-1-abc.gz`,
          's3:PutObject',
          'Allowed',
        ),
        ...bucketKeyCalls(m, role, bucket, ['kms:GenerateDataKey']),
      ];
    },
  },
  {
    when: viaFirehose,
    name: 'Firehose | sts:AssumeRole (aws:SourceAccount, aws:SourceArn) | delivery stream role | trust',
    calls: (m) => {
      const f = firehose(m);
      return [
        assume(m, f.role, 'firehose.amazonaws.com', {
          'aws:SourceAccount': m.account,
          'aws:SourceArn': m.attr(f.ds),
        }),
      ];
    },
  },
  {
    when: viaFirehose,
    name: 'Firehose | stream reads, kms:Decrypt | events stream, key | identity, key',
    calls: (m) => {
      const f = firehose(m);
      return readCalls(m, f.role, stream(m, f.src.KinesisStreamARN));
    },
  },
  {
    when: viaFirehose,
    name: 'Firehose | es:Describe*, es:ESHttpPost/Put/Get | domain | identity, domain access policy',
    calls: (m) => {
      const f = firehose(m);
      const domain = domainOf(m, f.dest.DomainARN as string);
      const c = caller(m, f.role);
      const index = `${f.dest.IndexName as string}-2026-11-23`;
      return [
        ...['es:DescribeDomain', 'es:DescribeDomains', 'es:DescribeDomainConfig'].map((a) =>
          domainCall(m, c, domain, a, ''),
        ),
        domainCall(m, c, domain, 'es:ESHttpPost', '_bulk'),
        domainCall(m, c, domain, 'es:ESHttpPost', `${index}/_bulk`),
        domainCall(m, c, domain, 'es:ESHttpPut', `${index}/_doc/1`),
        ...[
          '_all/_settings',
          '_cluster/stats',
          `${index}/_mapping/_doc`,
          '_nodes',
          '_nodes/stats',
          '_nodes/AbCdEf123/stats',
          '_stats',
          `${index}/_stats`,
        ].map((p) => domainCall(m, c, domain, 'es:ESHttpGet', p)),
      ];
    },
  },
  {
    when: viaFirehose,
    name: 'Firehose | s3:PutObject, AbortMultipartUpload, GetBucketLocation, ListBucket*, kms:GenerateDataKey, kms:Decrypt | failed-documents prefix, its key | identity, bucket policy, key',
    calls: (m) => {
      const f = firehose(m);
      const s3 = f.dest.S3Configuration as { BucketARN: string; Prefix: string; ErrorOutputPrefix: string };
      const bucket = m.byValue('AWS::S3::Bucket', s3.BucketARN);
      const errors = s3.ErrorOutputPrefix.replace(
        '!{firehose:error-output-type}',
        'AmazonOpenSearchService-failed',
      );
      return [
        s3Object(
          m,
          f.role,
          bucket,
          `${s3.Prefix}2026/11/23/10/kfek-1-2026-11-23-10-00-00-abc.gz`,
          's3:PutObject',
          'Allowed',
        ),
        s3Object(
          m,
          f.role,
          bucket,
          `${errors}2026/11/23/10/kfek-1-2026-11-23-10-00-00-abc.gz`,
          's3:PutObject',
          'Allowed',
        ),
        s3Object(
          m,
          f.role,
          bucket,
          `${s3.Prefix}2026/11/23/10/kfek-1-2026-11-23-10-00-00-abc.gz`,
          's3:AbortMultipartUpload',
          'Allowed',
        ),
        ...['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'].map((a) =>
          s3Bucket(m, f.role, bucket, a),
        ),
        // Firehose's documented S3 grant: GenerateDataKey to write, Decrypt for the parts of a multipart upload.
        ...bucketKeyCalls(m, f.role, bucket, ['kms:GenerateDataKey', 'kms:Decrypt']),
      ];
    },
  },
  {
    when: viaFirehose,
    name: 'Firehose | logs:PutLogEvents | its delivery log streams | identity',
    calls: (m) => {
      const f = firehose(m);
      const options = [
        f.dest.CloudWatchLoggingOptions,
        (f.dest.S3Configuration as { CloudWatchLoggingOptions: unknown }).CloudWatchLoggingOptions,
      ] as { LogGroupName: string; LogStreamName: string }[];
      return options.map((o): Call => ({
        ...caller(m, f.role),
        action: 'logs:PutLogEvents',
        resource: `${o.LogGroupName}:${o.LogStreamName}`,
        resourceArn: `arn:aws:logs:${m.region}:${m.account}:log-group:${o.LogGroupName}:log-stream:${o.LogStreamName}`,
        expect: 'Allowed',
      }));
    },
  },
  {
    name: 'provisioner | sts:AssumeRole into the admin role, es:ESHttp* | domain (of its DomainEndpoint) | trust, identity, domain policy',
    calls: (m) => {
      const fn = m.find('Pipeline/OpenSearchProvisioner/Function', 'AWS::Lambda::Function');
      const admin = m.functionRole(fn);
      const cr = m.find('Pipeline/OpenSearchProvisioner/Resource', 'Custom::KfekOpenSearchProvisioning');
      const domain = m
        .findAll('AWS::OpenSearchService::Domain')
        .find((d) => m.attr(d, 'DomainEndpoint') === cr.properties.DomainEndpoint);
      if (domain === undefined)
        throw new Error(
          `${cr.path} provisions ${String(cr.properties.DomainEndpoint)}, which is no domain of the app`,
        );
      const c = caller(m, admin);
      // The requests core/opensearch/provision.ts makes, by method and path.
      const requests: [string, string][] = [
        ['es:ESHttpGet', ''],
        ['es:ESHttpGet', '_cat/plugins'],
        ['es:ESHttpGet', '_index_template/kfek-logs'],
        ['es:ESHttpPut', '_index_template/kfek-logs'],
        ['es:ESHttpPut', '_ingest/pipeline/kfek-logs-document-id'],
        ['es:ESHttpGet', '_plugins/_ism/policies/kfek-logs-retention'],
        ['es:ESHttpPut', '_plugins/_ism/policies/kfek-logs-retention'],
        ['es:ESHttpPost', '_plugins/_ism/add/logs-*'],
        ['es:ESHttpPut', '_plugins/_security/api/roles/kfek_writer'],
        ['es:ESHttpGet', '_plugins/_security/api/rolesmapping/kfek_writer'],
        ['es:ESHttpPut', '_plugins/_security/api/rolesmapping/kfek_writer'],
        // The built-in roles kfek adds people to (merged into their mappings, never deleted).
        ['es:ESHttpPut', '_plugins/_security/api/rolesmapping/all_access'],
        ['es:ESHttpPut', '_plugins/_security/api/rolesmapping/security_manager'],
        ['es:ESHttpPut', '_plugins/_security/api/rolesmapping/opensearch_dashboards_user'],
        ['es:ESHttpPut', '_plugins/_security/api/audit/config'],
        ['es:ESHttpGet', '_dashboards/api/status'],
        ['es:ESHttpPost', '_dashboards/api/saved_objects/_bulk_create'],
        // Issue 39: kfek's record of what it owns (core/opensearch/registry.ts), created once, then updated.
        ['es:ESHttpGet', '.kfek-registry/_doc/objects'],
        ['es:ESHttpPut', '.kfek-registry'],
        ['es:ESHttpPut', '.kfek-registry/_doc/objects'],
        // Issue 30: the objects of stems that left the profile, once their last index is gone.
        ['es:ESHttpPost', '_plugins/_ism/change_policy/logs-2026-11-25'],
        ['es:ESHttpPut', 'logs-2026-11-25/_settings'],
        ['es:ESHttpDelete', '_index_template/kfek-search'],
        ['es:ESHttpDelete', '_ingest/pipeline/kfek-logs-document-id'],
        ['es:ESHttpDelete', '_plugins/_ism/policies/kfek-search-retention'],
        ['es:ESHttpDelete', '_plugins/_security/api/roles/kfek_search_reader'],
        ['es:ESHttpDelete', '_plugins/_security/api/rolesmapping/kfek_search_reader'],
        ['es:ESHttpDelete', '_dashboards/api/saved_objects/index-pattern/kfek-search-index-pattern'],
      ];
      return [
        assume(m, admin, 'lambda.amazonaws.com', {}),
        ...requests.map(([action, p]) => domainCall(m, c, domain, action, p)),
        // ISM deletes indices; the provisioner may not.
        domainCall(m, c, domain, 'es:ESHttpDelete', 'logs-2026-11-25', 'Denied'),
        // Issue 39: nothing outside kfek's own names, whatever path a mistake in the code (or a hostile name the
        // signer resolved) would build.
        ...NOT_KFEKS.map(([action, p]) => domainCall(m, c, domain, action, p, 'Denied')),
      ];
    },
  },
  {
    name: 'a mapped person | es:ESHttpGet/Post | domain (Dashboards, search) | domain policy + docs/deploy/opensearch-user-policy.json',
    calls: (m) => {
      const domain = m.find('Search/Search/Domain', 'AWS::OpenSearchService::Domain');
      const person = {
        caller: 'a person (role Analyst) with docs/deploy/opensearch-user-policy.json',
        principal: `arn:aws:iam::${m.account}:role/Analyst`,
        identityPolicies: [
          {
            name: 'docs/deploy/opensearch-user-policy.json',
            policy: userPolicy({ region: m.region, account: m.account, domainName: m.ref(domain) }),
          },
        ],
      };
      return [
        domainCall(m, person, domain, 'es:ESHttpGet', '_dashboards/app/home'),
        domainCall(m, person, domain, 'es:ESHttpPost', '_dashboards/api/saved_objects/_find'),
        domainCall(m, person, domain, 'es:ESHttpGet', `${INDEX}/_search`),
        domainCall(m, person, domain, 'es:ESHttpPost', 'logs-*/_search'),
      ];
    },
  },
];
