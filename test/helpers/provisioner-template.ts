/**
 * The part of a Pipeline template the doctor's domain plan reads (core/change-plan/provisioner-spec.ts), built from a profile
 * without synthesizing the whole app: the provisioner custom resource with its `Spec` (the Firehose role's ARN a
 * `Fn::GetAtt`, as the construct writes it, and the indexer's fixed-name ARN), the delivery stream's rotation and
 * the stack's `FirehoseRoleArn` and `IndexerRoleArn` outputs. test/cli/doctor/domain.test.ts holds it to a real synthesized template once.
 */
import type { CfnTemplate } from '../../core/change-plan';
import { resolveConfig, type PipelineConfig } from '../../core/config';
import { openSearchSpecInputOf } from '../../core/config/opensearch-spec';
import type { OpenSearchSpecInput } from '../../core/opensearch/spec';

export const FIREHOSE_ROLE_REF = { 'Fn::GetAtt': ['DeliveryRole', 'Arn'] } as const;
/** The indexer's fixed-name role, which the writer mapping names while Firehose delivers (the stack's output). */
export const INDEXER_ROLE_REF = {
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':role/indexer']],
} as const;
const ARN_PLACEHOLDER = '<<FIREHOSE_ROLE_ARN>>';
const INDEXER_PLACEHOLDER = '<<INDEXER_ROLE_ARN>>';

/** The spec input the OpenSearch provisioner construct gets from the Pipeline stack for this config. */
export function specInputOf(
  config: PipelineConfig,
  firehoseRoleArn: string,
  indexerRoleArn?: string,
): OpenSearchSpecInput {
  return openSearchSpecInputOf(config, {
    firehoseRoleArn,
    ...(indexerRoleArn === undefined ? {} : { writerBackendRoles: [indexerRoleArn] }),
  });
}

/** A Pipeline template with what the doctor's domain plan reads, for `profile` (a cdk.json profile object). */
export function pipelineTemplateOf(profile: Record<string, unknown>): CfnTemplate {
  const config = resolveConfig({ kfek: { profiles: { test: profile } } }, 'test');
  const [head, rest] = JSON.stringify(specInputOf(config, ARN_PLACEHOLDER, INDEXER_PLACEHOLDER)).split(
    ARN_PLACEHOLDER,
  );
  const [middle, tail] = rest.split(INDEXER_PLACEHOLDER);
  return {
    Resources: {
      OpenSearchProvisioner: {
        Type: 'Custom::KfekOpenSearchProvisioning',
        Properties: { Spec: { 'Fn::Join': ['', [head, FIREHOSE_ROLE_REF, middle, INDEXER_ROLE_REF, tail]] } },
      },
      Delivery: {
        Type: 'AWS::KinesisFirehose::DeliveryStream',
        Properties: {
          AmazonopensearchserviceDestinationConfiguration: {
            IndexRotationPeriod: config.delivery.indexRotation,
          },
        },
      },
    },
    Outputs: {
      FirehoseRoleArn: { Value: FIREHOSE_ROLE_REF },
      IndexerRoleArn: { Value: INDEXER_ROLE_REF },
    },
  };
}
