import { Stack, type StackProps } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { PipelineMonitoring, type PipelineMonitoringProps } from '../constructs/pipeline-monitoring';

/**
 * Everything in {@link PipelineMonitoringProps} (the pipeline's streams and domain as interfaces, plus thresholds)
 * except the transform function, which this stack finds by its fixed name, and the usual stack props.
 */
export interface MonitoringStackProps
  extends StackProps, Omit<PipelineMonitoringProps, 'transformFunction' | 'indexerFunction'> {
  /**
   * The transform function's fixed name (core/contracts/physical-names.ts). A name, not the Pipeline stack's
   * function: an import would let the Pipeline stack not remove or rename its export while this stack uses it, and
   * a transport switch does exactly that ("Cannot delete export ... as it is in use").
   */
  readonly transformFunctionName: string;
  /**
   * The indexer function's fixed name (`delivery.mode: direct`), found by name like the transform.
   * @default - none: Firehose delivers
   */
  readonly indexerFunctionName?: string;
}

/**
 * Operations: alarms with their SNS topic, the pipeline dashboard and the saved Logs Insights queries.
 *
 * Stateless (nothing here holds data), so it can be destroyed and redeployed at will. It imports only from the
 * Search stack (whose exports never change) and names the Pipeline stack's function and delivery stream by their
 * fixed names, so no change to the Pipeline stack is ever refused because of this one.
 */
export class MonitoringStack extends Stack {
  readonly monitoring: PipelineMonitoring;

  constructor(scope: Construct, id: string, props: MonitoringStackProps) {
    super(scope, id, props);
    const transformFunction = lambda.Function.fromFunctionName(
      this,
      'TransformFunction',
      props.transformFunctionName,
    );
    const indexerFunction =
      props.indexerFunctionName === undefined
        ? undefined
        : lambda.Function.fromFunctionName(this, 'IndexerFunction', props.indexerFunctionName);
    this.monitoring = new PipelineMonitoring(this, 'Monitoring', {
      ...props,
      transformFunction,
      ...(indexerFunction === undefined ? {} : { indexerFunction }),
    });
  }
}
