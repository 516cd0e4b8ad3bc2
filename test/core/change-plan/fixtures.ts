/**
 * Small hand-written templates for the change planner's tests: a producer of one export and its consumer, and
 * resources of the types whose rules the tests exercise.
 */
import type { CfnResource, CfnTemplate, StackChangeInput } from '../../../core/change-plan';

export const template = (
  resources: Record<string, CfnResource>,
  outputs: CfnTemplate['Outputs'] = {},
): CfnTemplate => ({ Resources: resources, Outputs: outputs });
export const exported = (name: string, value: unknown) => ({ Value: value, Export: { Name: name } });
export const importValue = (name: string) => ({ 'Fn::ImportValue': name });

export const stream = (properties: Record<string, unknown> = {}): CfnResource => ({
  Type: 'AWS::Kinesis::Stream',
  Properties: { ShardCount: 1, ...properties },
});
export const logGroup = (name: string, policy?: string): CfnResource => ({
  Type: 'AWS::Logs::LogGroup',
  Properties: { LogGroupName: name },
  ...(policy !== undefined ? { DeletionPolicy: policy, UpdateReplacePolicy: policy } : {}),
});
export const bucket = (name?: string): CfnResource => ({
  Type: 'AWS::S3::Bucket',
  Properties: name === undefined ? {} : { BucketName: name },
});
export const consumerOf = (arn: unknown): CfnResource => ({
  Type: 'AWS::Lambda::EventSourceMapping',
  Properties: { FunctionName: 'transform', EventSourceArn: arn, StartingPosition: 'TRIM_HORIZON' },
});
export const deliveryStream = (sourceArn: string, name?: string): CfnResource => ({
  Type: 'AWS::KinesisFirehose::DeliveryStream',
  Properties: {
    ...(name !== undefined ? { DeliveryStreamName: name } : {}),
    DeliveryStreamType: 'KinesisStreamAsSource',
    KinesisStreamSourceConfiguration: { KinesisStreamARN: sourceArn, RoleARN: 'arn:aws:iam::1:role/r' },
  },
});
export const domain = (engineVersion: string, upgrade?: boolean): CfnResource => ({
  Type: 'AWS::OpenSearchService::Domain',
  Properties: { DomainName: 'kfek-sandbox', EngineVersion: engineVersion },
  ...(upgrade !== undefined ? { UpdatePolicy: { EnableVersionUpgrade: upgrade } } : {}),
});

export const RAW_ARN = 'search:RawArn';
export const producer = (withExport: boolean): CfnTemplate =>
  template(
    { Raw: stream() },
    withExport ? { RawArn: exported(RAW_ARN, { 'Fn::GetAtt': ['Raw', 'Arn'] }) } : {},
  );
export const consumer = (importing: boolean): CfnTemplate =>
  template({
    Esm: consumerOf(importing ? importValue(RAW_ARN) : 'arn:aws:kinesis:eu-west-1:1:stream/other'),
  });

/** One stack `s` going from `before` to `after`. */
export const oneStack = (before: CfnTemplate | undefined, after: CfnTemplate): StackChangeInput => ({
  before: { s: before },
  after: { s: after },
  order: ['s'],
});
