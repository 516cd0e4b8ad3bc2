/** The denials of the permission matrix: what must stay impossible whatever else changes. */
import type { Call, NamedPolicy } from '../../helpers/permission-matrix';
import { OTHER_ACCOUNT } from '../../helpers/permission-matrix';
import {
  userPolicy,
  role,
  caller,
  assume,
  s3Object,
  domainCall,
  alarmTopicCalls,
  failedDocumentsWriter,
  firehose,
  indexer,
  indexerPipeline,
  INDEX,
  sameAccountFilters,
  type Row,
  viaFirehose,
  viaIndexer,
} from './calls';

export const DENY_ROWS: readonly Row[] = [
  {
    name: 'delivery role cannot write the events stream (nor read the raw one)',
    calls: (m) => {
      const events = m.find('Search/EventsStream', 'AWS::Kinesis::Stream');
      const raw = m.find('Search/RawStream', 'AWS::Kinesis::Stream');
      return sameAccountFilters(m).flatMap((f) => {
        const c = caller(m, role(m, f.properties.RoleArn as string));
        return [
          ...['kinesis:PutRecord', 'kinesis:PutRecords'].map((action): Call => ({
            ...c,
            action,
            resource: events.path,
            resourceArn: m.attr(events),
            expect: 'Denied',
          })),
          {
            ...c,
            action: 'kinesis:GetRecords',
            resource: raw.path,
            resourceArn: m.attr(raw),
            expect: 'Denied',
          },
        ];
      });
    },
  },
  {
    name: 'transform cannot read or delete failed documents (nor dead letters)',
    calls: (m) => {
      const bucket = m.find('Search/FailedRecordsBucket', 'AWS::S3::Bucket');
      const fns = m.findAll('AWS::Lambda::Function').filter((f) => f.path.startsWith('Pipeline/Transform/'));
      if (fns.length !== 1) throw new Error(`expected one transform function, found ${fns.length}`);
      const r = m.functionRole(fns[0]);
      return [
        'failed-documents/2026/11/23/10/x.gz',
        'dead-letter/transform/2026/11/23/x.json',
        'aws/lambda/x',
      ].flatMap((key) =>
        ['s3:GetObject', 's3:DeleteObject'].map((a) => s3Object(m, r, bucket, key, a, 'Denied')),
      );
    },
  },
  {
    when: viaFirehose,
    name: 'Firehose cannot delete or read objects',
    calls: (m) => {
      const f = firehose(m);
      const bucket = m.find('Search/FailedRecordsBucket', 'AWS::S3::Bucket');
      return ['failed-documents/2026/11/23/10/x.gz', 'dead-letter/transform/x.json', 'aws/lambda/x'].flatMap(
        (key) =>
          ['s3:DeleteObject', 's3:GetObject'].map((a) => s3Object(m, f.role, bucket, key, a, 'Denied')),
      );
    },
  },
  {
    name: "the indexer cannot read or delete objects, nor do anything on the domain but POST /_bulk and GET kfek's pipeline",
    when: viaIndexer,
    calls: (m) => {
      const { role } = indexer(m);
      const pipeline = indexerPipeline(m);
      const bucket = m.find('Search/FailedRecordsBucket', 'AWS::S3::Bucket');
      const domain = m.findAll('AWS::OpenSearchService::Domain')[0];
      const c = caller(m, role);
      return [
        ...['failed-documents/2026/11/23/10/x.gz', 'dead-letter/transform/x.json', 'aws/lambda/x'].flatMap(
          (key) =>
            ['s3:DeleteObject', 's3:GetObject'].map((a) => s3Object(m, role, bucket, key, a, 'Denied')),
        ),
        domainCall(m, c, domain, 'es:ESHttpPost', `${INDEX}/_bulk`, 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpPost', `${INDEX}/_delete_by_query`, 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpPut', `${INDEX}/_doc/1`, 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpGet', `${INDEX}/_search`, 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpDelete', INDEX, 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpPut', '_plugins/_security/api/rolesmapping/kfek_writer', 'Denied'),
        // Its one pipeline only: not the list of every pipeline, another one, a list naming kfek's, or a change.
        domainCall(m, c, domain, 'es:ESHttpGet', '_ingest/pipeline', 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpGet', '_ingest/pipeline/team-pipeline', 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpGet', `_ingest/pipeline/${pipeline},team-pipeline`, 'Denied'),
        domainCall(m, c, domain, 'es:ESHttpPut', `_ingest/pipeline/${pipeline}`, 'Denied'),
      ];
    },
  },
  {
    name: 'nothing outside the account can assume any role (other accounts, and services acting for them)',
    calls: (m) =>
      m.findAll('AWS::IAM::Role').flatMap((r) => {
        const calls: Call[] = [
          assume(m, r, `arn:aws:iam::${OTHER_ACCOUNT}:root`, {}, 'Denied'),
          assume(m, r, `arn:aws:iam::${OTHER_ACCOUNT}:role/Attacker`, {}, 'Denied'),
          assume(m, r, `arn:aws:iam::${m.account}:role/SomeoneElse`, {}, 'Denied'),
        ];
        for (const service of trustedServices(m.trustPolicy(r))) {
          // Lambda only assumes a role someone with iam:PassRole in this account gave a function; every other
          // service principal acts for whoever calls it, so its trust must name this account (confused deputy).
          if (service === 'lambda.amazonaws.com') continue;
          // The cross-account destination role exists to be used for other accounts: rows-cross-account.ts checks
          // that its trust admits exactly the source accounts (with an organization, the access policy is the gate).
          if (r.path.startsWith('DestinationRole/')) continue;
          calls.push(
            assume(
              m,
              r,
              service,
              {
                'aws:SourceAccount': OTHER_ACCOUNT,
                'aws:SourceArn': `arn:aws:${service.split('.')[0]}:${m.region}:${OTHER_ACCOUNT}:log-group:/theirs`,
              },
              'Denied',
            ),
          );
        }
        return calls;
      }),
  },
  {
    name: 'CloudWatch Logs acting for another region of this account, or for another account, cannot assume the delivery role',
    calls: (m) =>
      sameAccountFilters(m).flatMap((f) => {
        const r = role(m, f.properties.RoleArn as string);
        const otherRegion = m.region === 'us-west-2' ? 'eu-west-1' : 'us-west-2';
        return [
          assume(
            m,
            r,
            'logs.amazonaws.com',
            {
              'aws:SourceArn': `arn:aws:logs:${otherRegion}:${m.account}:log-group:/theirs`,
              'aws:SourceAccount': m.account,
            },
            'Denied',
          ),
          assume(
            m,
            r,
            'logs.amazonaws.com',
            {
              'aws:SourceArn': `arn:aws:logs:${m.region}:${OTHER_ACCOUNT}:log-group:/theirs`,
              'aws:SourceAccount': OTHER_ACCOUNT,
            },
            'Denied',
          ),
        ];
      }),
  },
  {
    name: 'a person without the identity policy, or in another account, is refused by the domain',
    calls: (m) => {
      const domain = m.find('Search/Search/Domain', 'AWS::OpenSearchService::Domain');
      const policy = [
        {
          name: 'docs/deploy/opensearch-user-policy.json',
          policy: userPolicy({ region: m.region, account: m.account, domainName: m.ref(domain) }),
        },
      ];
      return [
        domainCall(
          m,
          {
            caller: 'a person without the policy',
            principal: `arn:aws:iam::${m.account}:role/NoPolicy`,
            identityPolicies: [],
          },
          domain,
          'es:ESHttpGet',
          '_dashboards/app/home',
          'Denied',
        ),
        domainCall(
          m,
          {
            caller: 'a person of another account',
            principal: `arn:aws:iam::${OTHER_ACCOUNT}:role/Analyst`,
            identityPolicies: policy,
          },
          domain,
          'es:ESHttpGet',
          '_dashboards/app/home',
          'Denied',
        ),
      ];
    },
  },
  {
    name: 'plain HTTP is refused: bucket, queue and alarm topic keep their enforce-TLS deny',
    calls: (m) => {
      const bucket = m.find('Search/FailedRecordsBucket', 'AWS::S3::Bucket');
      const queue = m.find('Search/FailureQueue', 'AWS::SQS::Queue');
      const writer = failedDocumentsWriter(m);
      const admin = {
        caller: 'an admin of the account',
        principal: `arn:aws:iam::${m.account}:role/Admin`,
        identityPolicies: [
          {
            name: 'AdministratorAccess',
            policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
          },
        ],
      };
      return [
        s3Object(m, writer, bucket, 'failed-documents/x.gz', 's3:PutObject', 'Denied', {
          'aws:SecureTransport': 'false',
        }),
        {
          ...admin,
          action: 'sqs:SendMessage',
          resource: queue.path,
          resourceArn: m.attr(queue),
          resourcePolicy: m.queuePolicy(queue),
          context: { 'aws:SecureTransport': 'false' },
          expect: 'Denied',
        },
        ...alarmTopicCalls(m, false),
      ];
    },
  },
  {
    name: "CloudWatch acting for another account's alarm cannot publish to the alarm topic",
    calls: (m) => {
      const topic = m.find('Monitoring/Monitoring/AlarmTopic', 'AWS::SNS::Topic');
      return [
        {
          caller: 'cloudwatch.amazonaws.com (an alarm of another account)',
          principal: 'cloudwatch.amazonaws.com',
          action: 'sns:Publish',
          resource: topic.path,
          resourceArn: m.ref(topic),
          resourcePolicy: m.topicPolicy(topic),
          context: {
            'aws:SourceAccount': OTHER_ACCOUNT,
            'aws:SourceArn': `arn:aws:cloudwatch:${m.region}:${OTHER_ACCOUNT}:alarm:theirs`,
            'aws:SecureTransport': 'true',
          },
          expect: 'Denied',
        },
      ];
    },
  },
];

/** The service principals a trust policy allows to assume the role. */
function trustedServices(trust: NamedPolicy): string[] {
  return trust.policy.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) => {
    const service = (s.Principal as { Service?: string | string[] } | undefined)?.Service;
    return service === undefined ? [] : [service].flat();
  });
}
