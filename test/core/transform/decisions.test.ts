/**
 * The transform's decisions (issue 40, core/transform/decisions.ts): one per input event, beside the documents, so
 * nobody re-runs the transform or parses its documents to learn what became of an event. Each decision is held to
 * the document it names (route, stem, id, joins, parts, truncation) and to the counts the metrics publish.
 */
import fc from 'fast-check';
import { type EventDecision, documentIdOf } from '../../../core/transform/decisions';
import { RouteTable } from '../../../core/transform/routing';
import { transformRecord, type TransformOptions } from '../../../core/transform/transform';
import type { LogDocument, RecordOutcome } from '../../../core/transform/types';
import { documentIdFor } from '../../../core/opensearch/ingest-pipeline';
import type { RouteProcessing, TransformRoute } from '../../../core/contracts/routes';
import { MAX_KINESIS_RECORD_BYTES } from '../../../core/contracts/aws-limits';
import { encodeEnvelope, makeEnvelope } from '../../helpers/cloudwatch';

type Doc = LogDocument & {
  kfek?: { route?: string; stem?: string; joined?: number; part?: number; partOf?: string; truncated?: true };
};

function route(
  name: string,
  prefix: string,
  processing: Partial<RouteProcessing> = {},
  stem?: string,
): TransformRoute {
  return {
    name,
    match: { logGroupPrefix: prefix },
    staticFields: {},
    processing: { drop: [], ...processing },
    ...(stem === undefined ? {} : { indexStem: stem }),
  };
}

function data(outcome: RecordOutcome): { documents: Doc[]; decisions: readonly EventDecision[] } {
  if (outcome.kind !== 'data') throw new Error(`expected data, got ${outcome.kind}`);
  if (outcome.decisions === undefined) throw new Error('no decisions');
  return { documents: outcome.documents.map((d) => JSON.parse(d.json) as Doc), decisions: outcome.decisions };
}

function run(envelopes: object[], options: TransformOptions = {}) {
  const text = envelopes.map((e) => JSON.stringify(e)).join('');
  return data(transformRecord(encodeEnvelope(text), options));
}

/** Every decision agrees with the document it names; every document is named by exactly one kept decision. */
function expectConsistent(documents: readonly Doc[], decisions: readonly EventDecision[]): void {
  const keptFor = new Map<number, EventDecision>();
  for (const decision of decisions) {
    if (decision.kind === 'dropped') continue;
    const doc = documents[decision.document];
    expect(doc).toBeDefined();
    expect(doc.cloudwatch.logGroup).toBe(decision.source.logGroup);
    expect(doc.cloudwatch.logStream).toBe(decision.source.logStream);
    expect(doc.kfek?.route).toBe(decision.route);
    expect(doc.kfek?.stem).toBe(decision.stem);
    expect(doc.kfek?.part).toBe(decision.part?.number);
    expect(doc.kfek?.partOf).toBe(decision.part?.of);
    if (decision.kind === 'kept') {
      expect(keptFor.has(decision.document)).toBe(false);
      keptFor.set(decision.document, decision);
      expect(doc.cloudwatch.id).toBe(decision.eventId);
      expect(doc.kfek?.joined ?? 0).toBe(decision.joined);
      expect(doc.kfek?.truncated === true).toBe(decision.truncated);
      expect(documentIdOf(decision)).toBe(
        documentIdFor(doc.cloudwatch.logGroup, doc.cloudwatch.logStream, doc.cloudwatch.id),
      );
    } else {
      expect(doc.cloudwatch.id).toBe(decision.into);
      expect(documentIdOf(decision)).toBe(
        documentIdFor(doc.cloudwatch.logGroup, doc.cloudwatch.logStream, decision.into),
      );
    }
  }
  expect(keptFor.size).toBe(documents.length);
  for (const [document, kept] of keptFor) {
    if (kept.kind !== 'kept') continue;
    const joined = decisions.filter((d) => d.kind === 'joined' && d.document === document);
    expect(joined).toHaveLength(kept.joined);
  }
}

describe('transform decisions', () => {
  it('keeps every event of a profile without routes, each with its own document, across envelopes', () => {
    // GIVEN two envelopes of two log streams in one record
    const a = makeEnvelope({ logStream: 'a' }, [{ message: 'one' }, { message: 'two' }]);
    const b = makeEnvelope({ logStream: 'b' }, [{ message: 'three' }]);

    // WHEN
    const { documents, decisions } = run([a, b]);

    // THEN
    expect(decisions.map((d) => [d.kind, d.source.logStream, d.eventId])).toEqual([
      ['kept', 'a', a.logEvents[0].id],
      ['kept', 'a', a.logEvents[1].id],
      ['kept', 'b', b.logEvents[0].id],
    ]);
    expect(decisions.every((d) => d.route === undefined && d.account === a.owner)).toBe(true);
    expectConsistent(documents, decisions);
  });

  it('says the route, stem, masking and drop rule of each event, in order', () => {
    // GIVEN a route that masks e-mail addresses and drops health checks
    const routes = new RouteTable([
      route(
        'search',
        '/app/',
        {
          mask: { detectors: ['email'], custom: [] },
          drop: [
            { name: 'debug', field: 'level', fieldPattern: '^DEBUG$' },
            { name: 'chatter', messagePattern: 'chatter$' },
            { name: 'health', messagePattern: '^GET /health' },
          ],
        },
        'search-stem',
      ),
    ]);
    const envelope = makeEnvelope({ logGroup: '/app/api' }, [
      { message: '{"message":"signup","email":"jane@example.com"}' },
      { message: 'GET /health' },
      { message: 'plain line' },
      { message: '{"message":"cache miss","level":"DEBUG"}' },
      { message: 'background chatter' },
    ]);

    // WHEN
    const { documents, decisions } = run([envelope], { routes });

    // THEN
    expect(decisions).toMatchObject([
      { kind: 'kept', route: 'search', stem: 'search-stem', masked: true, document: 0, joined: 0 },
      { kind: 'dropped', route: 'search', stem: 'search-stem', rule: 'health' },
      { kind: 'kept', route: 'search', masked: false, document: 1 },
      { kind: 'dropped', rule: 'debug' },
      { kind: 'dropped', rule: 'chatter' },
    ]);
    expect(decisions.map((d) => d.eventId)).toEqual(envelope.logEvents.map((e) => e.id));
    expectConsistent(documents, decisions);
  });

  it('names the document a continuation line was joined into, and drops a dropped trace line by line', () => {
    // GIVEN a route that joins Java traces and drops those of a noisy class
    const routes = new RouteTable([
      route('api', '/app/', {
        multiline: { mode: 'java' },
        drop: [{ name: 'noisy', messagePattern: 'Noisy' }],
      }),
    ]);
    const envelope = makeEnvelope({ logGroup: '/app/api' }, [
      { message: 'ERROR failed' },
      { message: '\tat a.B.c(B.java:1)' },
      { message: '\tat a.B.d(B.java:2)' },
      { message: 'ERROR Noisy failed' },
      { message: '\tat a.Noisy.c(Noisy.java:1)' },
      { message: 'INFO done' },
    ]);
    const [first, , , noisy] = envelope.logEvents;

    // WHEN
    const { documents, decisions } = run([envelope], { routes });

    // THEN
    expect(decisions).toMatchObject([
      { kind: 'kept', joined: 2, document: 0 },
      { kind: 'joined', into: first.id, document: 0 },
      { kind: 'joined', into: first.id, document: 0 },
      { kind: 'dropped', rule: 'noisy' },
      { kind: 'dropped', rule: 'noisy', into: noisy.id },
      { kind: 'kept', joined: 0, document: 1 },
    ]);
    expect(decisions[3]).toMatchObject({ kind: 'dropped', into: undefined });
    expectConsistent(documents, decisions);
  });

  it('numbers the parts of a join too long for one document', () => {
    // GIVEN a trace whose lines pass one record together
    const routes = new RouteTable([route('api', '/app/', { multiline: { mode: 'java' } })]);
    const line = `\tat ${'x'.repeat(200_000)}`;
    const envelope = makeEnvelope({ logGroup: '/app/api' }, [
      { message: 'ERROR failed' },
      ...Array.from({ length: 8 }, () => ({ message: line })),
    ]);

    // WHEN
    const { documents, decisions } = run([envelope], { routes });

    // THEN
    expect(documents.length).toBeGreaterThan(1);
    const heads = decisions.filter((d) => d.kind === 'kept');
    expect(heads.map((d) => d.part)).toEqual(
      heads.map((_, i) => ({ number: i + 1, of: envelope.logEvents[0].id })),
    );
    expect(decisions.filter((d) => d.kind === 'kept' || d.kind === 'joined')).toHaveLength(9);
    expectConsistent(documents, decisions);
  });

  it('says which document was cut to fit one record', () => {
    // GIVEN one event longer than a record and one short one
    const envelope = makeEnvelope({}, [
      { message: 'y'.repeat(MAX_KINESIS_RECORD_BYTES + 10) },
      { message: 'short' },
    ]);

    // WHEN
    const { documents, decisions } = run([envelope]);

    // THEN
    expect(decisions).toMatchObject([
      { kind: 'kept', truncated: true },
      { kind: 'kept', truncated: false },
    ]);
    expectConsistent(documents, decisions);
  });

  it('routes a centralized event by its own account, and says which account', () => {
    // GIVEN a route for one source account of a centralized log group
    const routes = new RouteTable([
      { ...route('team-b', '/central/'), match: { logGroupPrefix: '/central/', account: ['222222222222'] } },
    ]);
    const envelope = makeEnvelope({ logGroup: '/central/x', owner: '999999999999' }, [
      { message: 'from a' },
      { message: 'from b' },
    ]);
    const events = [
      { ...envelope.logEvents[0], extractedFields: { '@aws.account': '111111111111' } },
      { ...envelope.logEvents[1], extractedFields: { '@aws.account': '222222222222' } },
    ];

    // WHEN
    const { documents, decisions } = run([{ ...envelope, logEvents: events }], { routes });

    // THEN
    expect(decisions).toMatchObject([
      { kind: 'kept', account: '111111111111' },
      { kind: 'kept', account: '222222222222', route: 'team-b' },
    ]);
    expect(decisions[0].route).toBeUndefined();
    expectConsistent(documents, decisions);
  });

  it('decides nothing for a poison record or a control message, and nothing when asked not to', () => {
    // GIVEN
    const envelope = makeEnvelope();

    // WHEN / THEN
    expect(transformRecord('not base64 gzip')).not.toHaveProperty('decisions');
    expect(
      transformRecord(encodeEnvelope({ ...envelope, messageType: 'CONTROL_MESSAGE', logEvents: [] })),
    ).toEqual({ kind: 'control' });
    const routes = new RouteTable([route('api', '/', { drop: [{ name: 'all', messagePattern: '.' }] })]);
    expect(transformRecord(encodeEnvelope(envelope), { decide: false })).not.toHaveProperty('decisions');
    const quiet = transformRecord(encodeEnvelope(envelope), { routes, decide: false });
    expect(quiet).toMatchObject({ kind: 'data', documents: [], processing: { droppedByRule: { all: 1 } } });
    expect(quiet).not.toHaveProperty('decisions');
  });

  it('decides once per event, consistent with the documents and the counts, for any mix of routes', () => {
    const routes = new RouteTable([
      route('java', '/app/java', {
        multiline: { mode: 'java' },
        drop: [{ name: 'trace-of-x', messagePattern: 'X' }],
        mask: { detectors: ['email'], custom: [] },
      }),
      route(
        'py',
        '/app/py',
        { multiline: { mode: 'python' }, drop: [{ name: 'ok', messagePattern: '^OK' }] },
        'py-stem',
      ),
      route('plain', '/app/', { drop: [{ name: 'debug', messagePattern: '^DEBUG' }] }),
    ]);
    const line = fc.constantFrom(
      'ERROR boom',
      'ERROR X boom',
      '\tat a.B(B.java:1)',
      'Traceback (most recent call last):',
      '  File "x.py", line 1',
      'ValueError: x',
      'OK fine',
      'DEBUG chatter',
      'mail jane@example.com',
      '{"message":"m","level":"INFO"}',
    );
    const envelope = fc.record({
      logGroup: fc.constantFrom('/app/java/a', '/app/py/b', '/app/c', '/other'),
      logStream: fc.constantFrom('s1', 's2'),
      lines: fc.array(line, { minLength: 1, maxLength: 20 }),
    });
    fc.assert(
      fc.property(fc.array(envelope, { minLength: 1, maxLength: 3 }), (specs) => {
        const envelopes = specs.map((s) =>
          makeEnvelope(
            { logGroup: s.logGroup, logStream: s.logStream },
            s.lines.map((message) => ({ message })),
          ),
        );
        const outcome = transformRecord(encodeEnvelope(envelopes.map((e) => JSON.stringify(e)).join('')), {
          routes,
        });
        const { documents, decisions } = data(outcome);
        expect(decisions).toHaveLength(envelopes.reduce((n, e) => n + e.logEvents.length, 0));
        expect(decisions.map((d) => d.eventId)).toEqual(
          envelopes.flatMap((e) => e.logEvents.map((l) => l.id)),
        );
        expectConsistent(documents, decisions);
        if (outcome.kind !== 'data') return;
        const joinedLines = decisions.reduce((n, d) => n + (d.kind === 'kept' ? d.joined : 0), 0);
        const droppedLines = decisions.filter((d) => d.kind === 'dropped' && d.into !== undefined).length;
        expect(outcome.processing?.joinedLines ?? 0).toBe(joinedLines + droppedLines);
        const droppedDocuments: Record<string, number> = {};
        for (const d of decisions)
          if (d.kind === 'dropped' && d.into === undefined)
            droppedDocuments[d.rule] = (droppedDocuments[d.rule] ?? 0) + 1;
        expect(outcome.processing?.droppedByRule ?? {}).toEqual(droppedDocuments);
      }),
      { numRuns: 200, seed: 40 },
    );
  });
});
