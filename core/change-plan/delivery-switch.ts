/**
 * A named change the plan recognizes in the templates: a switch of `delivery.mode` (docs/delivery.md, "Switching
 * delivery"). CloudFormation carries it out as a plain update; this says what it means for the documents in flight,
 * which a list of added and removed resources does not.
 */
import { INDEXER_SERVICE_NAME } from '../contracts/indexer-env';
import { own } from './template';
import type { CfnTemplate, DeliveryMode, DeliverySwitch, StackChangeInput } from './types';

const obj = (v: unknown): Readonly<Record<string, unknown>> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Readonly<Record<string, unknown>>) : {};

/**
 * How the template delivers to OpenSearch: a Firehose delivery stream with an OpenSearch destination, or the
 * indexer function (the Lambda function whose Powertools service is the indexer's); undefined for neither.
 */
export function deliveryOf(template: CfnTemplate | undefined): DeliveryMode | undefined {
  for (const r of Object.values(template?.Resources ?? {})) {
    if (
      r.Type === 'AWS::KinesisFirehose::DeliveryStream' &&
      r.Properties?.AmazonopensearchserviceDestinationConfiguration !== undefined
    ) {
      return 'firehose';
    }
    const env = obj(obj(r.Properties?.Environment).Variables);
    if (r.Type === 'AWS::Lambda::Function' && env.POWERTOOLS_SERVICE_NAME === INDEXER_SERVICE_NAME)
      return 'direct';
  }
  return undefined;
}

const MEANING: Readonly<Record<DeliveryMode, string>> = {
  direct:
    'delivery switches from Firehose to the indexer: CloudFormation creates the indexer and its event source ' +
    'mapping before it deletes the delivery stream (whose buffered records AWS does not promise to deliver once it ' +
    "is deleting), and the mapping starts at the events stream's oldest record, so what Firehose did not deliver is " +
    'indexed again under the same id in the same index: nothing lost, nothing stored twice. Until the stream is ' +
    'gone, its last retries may be refused (its role leaves the writer mapping) and kept under the failed-documents ' +
    'prefix, already indexed by the indexer',
  firehose:
    'delivery switches from the indexer to Firehose: CloudFormation creates the delivery stream, which reads from ' +
    "its creation on, before it deletes the indexer's mapping, and the indexer keeps its writer mapping until then, " +
    'so every record is read by one of them; the ingest pipeline sets the same ids, so nothing is stored twice',
};

/** The delivery switches of a change, stack by stack. */
export function deliverySwitches(input: StackChangeInput): DeliverySwitch[] {
  const out: DeliverySwitch[] = [];
  for (const stackName of input.order) {
    const from = deliveryOf(own(input.before, stackName));
    const to = deliveryOf(input.after[stackName]);
    if (from === undefined || to === undefined || from === to) continue;
    out.push({ stackName, from, to, message: `${stackName}: ${MEANING[to]}` });
  }
  return out;
}
