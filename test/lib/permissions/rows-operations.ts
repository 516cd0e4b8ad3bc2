/**
 * Matrix rows of what runs around the pipeline: Lambda execution roles and their logs, the custom resource
 * provider, CloudWatch alarm notifications, and OpenSearch Service publishing its logs.
 */
import type { Call } from '../../helpers/permission-matrix';
import { caller, assume, functionLogCalls, alarmTopicCalls, type Row } from './calls';

export const OPERATIONS_ROWS: readonly Row[] = [
  {
    name: 'custom resource provider | lambda:InvokeFunction | provisioner function | identity',
    calls: (m) => {
      const framework = m.find(
        'Pipeline/OpenSearchProvisioner/Provider/framework-onEvent',
        'AWS::Lambda::Function',
      );
      const fn = m.find('Pipeline/OpenSearchProvisioner/Function', 'AWS::Lambda::Function');
      return [
        {
          ...caller(m, m.functionRole(framework)),
          action: 'lambda:InvokeFunction',
          resource: fn.path,
          resourceArn: m.attr(fn),
          expect: 'Allowed',
        },
      ];
    },
  },
  {
    name: 'Lambda service | sts:AssumeRole, logs:CreateLogStream/PutLogEvents | every function role, its log group | trust, identity',
    calls: (m) =>
      m
        .findAll('AWS::Lambda::Function')
        .flatMap((fn) => [
          assume(m, m.functionRole(fn), 'lambda.amazonaws.com', {}),
          ...functionLogCalls(m, fn),
        ]),
  },
  {
    name: 'CloudWatch alarms | sns:Publish, kms:Decrypt/GenerateDataKey (every alarm of the topic) | alarm topic, its key | topic policy, key policy',
    calls: (m) => alarmTopicCalls(m),
  },
  {
    name: 'OpenSearch Service | logs:CreateLogStream/PutLogEvents | the domain log groups | CloudWatch Logs resource policy',
    calls: (m) =>
      m.findAll('AWS::OpenSearchService::Domain').flatMap((domain) =>
        Object.entries(
          domain.properties.LogPublishingOptions as Record<
            string,
            { CloudWatchLogsLogGroupArn: string; Enabled: boolean }
          >,
        )
          .filter(([, o]) => o.Enabled)
          .flatMap(([kind, o]) =>
            ['logs:CreateLogStream', 'logs:PutLogEvents'].map((action): Call => ({
              caller: `es.amazonaws.com (${kind})`,
              principal: 'es.amazonaws.com',
              action,
              resource: `${domain.path} ${kind}`,
              resourceArn: `${o.CloudWatchLogsLogGroupArn.replace(/:\*$/, '')}:log-stream:${m.ref(domain)}-es-${kind}`,
              resourcePolicy: m.logsResourcePolicy(),
              context: { 'aws:SourceAccount': m.account, 'aws:SourceArn': m.attr(domain) },
              expect: 'Allowed',
            })),
          ),
      ),
  },
];
