/**
 * The named change "switch of delivery" (core/change-plan/delivery-switch.ts, issue 41): recognized in the real
 * synthesized templates of a profile before and after `delivery.mode` changes, with what it means, and the deleted
 * delivery stream no longer reported as data lost (the indexer's re-read covers it).
 */
import { type ChangePlan, deliveryOf, planChange, planFindings } from '../../../core/change-plan';
import { CDK_JSON_CONTEXT } from '../../helpers/app';
import { type SynthesizedApp, synthProfile } from '../../helpers/synth-templates';

const SHIPPED = (CDK_JSON_CONTEXT.kfek as { profiles: Record<string, Record<string, unknown>> }).profiles;

function plan(before: SynthesizedApp, after: SynthesizedApp): ChangePlan {
  return planChange({ before: before.templates, after: after.templates, order: after.order });
}

describe('a switch of delivery.mode', () => {
  let firehose: SynthesizedApp;
  let direct: SynthesizedApp;

  beforeAll(() => {
    // The same profile (same stack names) with each delivery.
    firehose = synthProfile({ ...SHIPPED['sandbox-direct'], delivery: { mode: 'firehose' } });
    direct = synthProfile(SHIPPED['sandbox-direct']);
  }, 120_000);

  test('each template says how it delivers', () => {
    expect(deliveryOf(firehose.templates['kfek-test-pipeline'])).toBe('firehose');
    expect(deliveryOf(direct.templates['kfek-test-pipeline'])).toBe('direct');
    expect(deliveryOf(firehose.templates['kfek-test-search'])).toBeUndefined();
  });

  test('firehose -> direct is one named notice, and the deleted delivery stream is not reported lost', () => {
    // WHEN
    const p = plan(firehose, direct);
    const findings = planFindings(p);
    // THEN
    expect(p.deliverySwitches).toEqual([
      expect.objectContaining({ stackName: 'kfek-test-pipeline', from: 'firehose', to: 'direct' }),
    ]);
    const named = findings.filter((f) => f.kind === 'delivery-switch');
    expect(named).toHaveLength(1);
    expect(named[0].impact).toBe('switches');
    expect(named[0].message).toMatch(
      /oldest record.*same id in the same index: nothing lost, nothing stored twice/,
    );
    expect(
      findings.filter(
        (f) => f.kind === 'deletion' && f.subject.type === 'AWS::KinesisFirehose::DeliveryStream',
      ),
    ).toEqual([]);
    expect(p.refused).toEqual([]);
    expect(p.nameClashes).toEqual([]);
  });

  test('direct -> firehose is the named notice the other way', () => {
    // WHEN
    const findings = planFindings(plan(direct, firehose));
    // THEN
    const named = findings.filter((f) => f.kind === 'delivery-switch');
    expect(named.map((f) => f.message)).toEqual([expect.stringMatching(/from the indexer to Firehose/)]);
  });

  test('no switch, no named change', () => {
    expect(plan(direct, direct).deliverySwitches).toEqual([]);
  });
});
