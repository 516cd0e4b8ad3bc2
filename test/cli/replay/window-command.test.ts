import { UsageError } from '../../../cli/errors';
import { replayCommand } from '../../../cli/replay/command';

const QUIET = { write: (): void => undefined };

describe('kfek replay --kind events-window', () => {
  test('fails when nothing names the events stream, saying how to name it', async () => {
    // GIVEN neither --events-stream nor --profile
    // WHEN
    const run = replayCommand(['--kind', 'events-window', '--since', '1h', '--region', 'eu-west-1'], {
      stdout: QUIET,
      stderr: QUIET,
      env: {},
    });
    // THEN no AWS call is made and the message says what to pass
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(
      /^replay: --kind events-window needs the events stream: pass --events-stream NAME\|ARN, or --profile NAME for its stream kfek-<profile>-events/,
    );
  });
});
