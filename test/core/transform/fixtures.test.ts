/**
 * Snapshot tests of the transform output over real-world payloads (test/fixtures/README.md).
 * These snapshots are the document schema's contract: a diff is reviewed line by line, never `-u`'d blindly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformRecord } from '../../../core/transform/transform';
import { LogDocument, RecordOutcome } from '../../../core/transform/types';
import { encodeEnvelope, makeEnvelope } from '../../helpers/cloudwatch';

const FIXTURES = join(__dirname, '../../fixtures');

function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

interface Row {
  readonly origin: string;
  readonly message: string;
}

function jsonlRows(name: string): Row[] {
  return fixtureText(name)
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Row);
}

/** The documents of a `data` outcome, parsed back, with the partition key they share. */
function documentsOf(outcome: RecordOutcome): { partitionKey: string; documents: LogDocument[] } {
  if (outcome.kind !== 'data') throw new Error(`expected data, got ${JSON.stringify(outcome)}`);
  const keys = new Set(outcome.documents.map((d) => d.partitionKey));
  expect(keys.size).toBeLessThanOrEqual(1);
  for (const d of outcome.documents) expect(d.bytes).toBe(Buffer.byteLength(d.json, 'utf8'));
  return {
    partitionKey: outcome.documents[0]?.partitionKey ?? '',
    documents: outcome.documents.map((d) => JSON.parse(d.json) as LogDocument),
  };
}

describe('transform snapshots over real-world envelopes', () => {
  it.each([
    'aws-docs__cwl-account-level-subscription-policy__decoded.json',
    'datadog-forwarder__integration-snapshots__cloudwatch_log_cloudtrail__decoded.json',
    'datadog-forwarder__integration-snapshots__cloudwatch_log_coldstart__decoded-unescaped.json',
    'datadog-forwarder__integration-snapshots__cloudwatch_log_lambda_invocation__decoded.json',
    'datadog-forwarder__integration-snapshots__cloudwatch_log_timeout__decoded-unescaped.json',
    'datadog-forwarder__integration-snapshots__step_functions_log__decoded.json',
    'datadog-forwarder__tests-events__cloudwatch_logs__decoded.json',
    'grafana-lambda-promtail__testdata__kinesis-event__decoded.json',
    'otel-contrib__cwl-centralization-extractedFields__decoded.json',
  ])('%s', (name) => {
    // GIVEN
    const data = encodeEnvelope(fixtureText(name));
    // WHEN
    const outcome = transformRecord(data);
    // THEN
    expect(documentsOf(outcome)).toMatchSnapshot();
  });

  it('takes an uncompressed envelope as well as a gzipped one', () => {
    const name = 'otel-contrib__cwl-centralization-extractedFields__decoded.json';
    const gzipped = transformRecord(encodeEnvelope(fixtureText(name)));
    const plain = transformRecord(encodeEnvelope(fixtureText(name), { gzip: false }));
    expect(plain).toEqual(gzipped);
  });
});

describe('transform snapshots over records as delivered', () => {
  it('powertools-ts Kinesis event from a real CloudWatch Logs subscription', () => {
    const event = JSON.parse(fixtureText('powertools-ts__kinesis-event__cwl-subscription__raw.json')) as {
      Records: Array<{ kinesis: { data: string } }>;
    };
    expect(event.Records.map((r) => documentsOf(transformRecord(r.kinesis.data)))).toMatchSnapshot();
  });

  it('powertools-ts awslogs payload (same envelope encoding as a Kinesis record)', () => {
    const event = JSON.parse(fixtureText('powertools-ts__awslogs-event__lambda-subscription__raw.json')) as {
      awslogs: { data: string };
    };
    expect(documentsOf(transformRecord(event.awslogs.data))).toMatchSnapshot();
  });

  it('moto server record with integer event ids: ids become strings', () => {
    const capture = JSON.parse(fixtureText('moto-server-5.2.5__cwl-subscription-integer-ids__raw.json')) as {
      data: string;
    };
    const result = documentsOf(transformRecord(capture.data));
    expect(result.documents.map((d) => d.cloudwatch.id)).toEqual(['0', '1', '2']);
    expect(result).toMatchSnapshot();
  });
});

describe('transform snapshots over single log lines', () => {
  it.each([
    'lambda-platform-and-runtime-lines__text-format.jsonl',
    'lambda-platform-and-app-lines__json-log-format.jsonl',
    'app-json-log-lines.jsonl',
  ])('%s', (name) => {
    // GIVEN one envelope holding every line of the file, in order
    const rows = jsonlRows(name);
    const data = encodeEnvelope(
      makeEnvelope(
        {},
        rows.map((row) => ({ message: row.message })),
      ),
    );
    // WHEN
    const { documents } = documentsOf(transformRecord(data));
    // THEN
    expect(documents).toHaveLength(rows.length);
    expect(rows.map((row, i) => ({ origin: row.origin, document: documents[i] }))).toMatchSnapshot();
  });
});

describe('envelopes that produce no documents', () => {
  it('CONTROL_MESSAGE is a control outcome', () => {
    expect(
      transformRecord(encodeEnvelope(fixtureText('otel-contrib__cwl-control-message__decoded.json'))),
    ).toEqual({
      kind: 'control',
    });
  });

  it('an envelope without logGroup is poison and says so', () => {
    expect(
      transformRecord(
        encodeEnvelope(fixtureText('otel-contrib__cwl-invalid-missing-logGroup__decoded.json')),
      ),
    ).toEqual({ kind: 'poison', reason: 'not a CloudWatch Logs envelope: missing logGroup' });
  });
});

describe('records holding several concatenated objects', () => {
  it("concatenated envelopes in one record (OpenTelemetry collector fixture) give both envelopes' documents", () => {
    const outcome = transformRecord(
      encodeEnvelope(fixtureText('otel-contrib__cwl-concatenated-envelopes__decoded.ndjson')),
    );
    if (outcome.kind !== 'data') throw new Error(`expected data, got ${JSON.stringify(outcome)}`);
    expect(outcome.documents.map((d) => JSON.parse(d.json) as unknown)).toMatchSnapshot();
  });

  it('an envelope mixed with a record that is not one (OpenTelemetry collector fixture) is poison, kept whole', () => {
    expect(
      transformRecord(
        encodeEnvelope(fixtureText('otel-contrib__cwl-mixed-with-non-cwl-record__decoded.ndjson')),
      ),
    ).toEqual({
      kind: 'poison',
      reason: 'concatenated envelope 2 of 3: not a CloudWatch Logs envelope: missing messageType',
    });
  });
});
