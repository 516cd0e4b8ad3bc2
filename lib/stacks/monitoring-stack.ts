import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { PipelineMonitoring, type PipelineMonitoringProps } from '../constructs/pipeline-monitoring';

/**
 * Everything in {@link PipelineMonitoringProps} (the pipeline's streams, function, delivery stream and domain as
 * interfaces, plus thresholds) and the usual stack props.
 */
export interface MonitoringStackProps extends StackProps, PipelineMonitoringProps {}

/**
 * Operations: alarms with their SNS topic, the pipeline dashboard and the saved Logs Insights queries.
 *
 * Stateless (nothing here holds data), so it can be destroyed and redeployed at will; it depends on the search
 * and pipeline stacks only through the interfaces it is given.
 */
export class MonitoringStack extends Stack {
  readonly monitoring: PipelineMonitoring;

  constructor(scope: Construct, id: string, props: MonitoringStackProps) {
    super(scope, id, props);
    this.monitoring = new PipelineMonitoring(this, 'Monitoring', props);
  }
}
