/**
 * The command table (cli/commands.ts) is the one place a command is declared: its help page, the overview's lines
 * and the way it runs come from its row. In-process through `run`, with captured streams.
 */
import { ALL_OPTIONS } from '../../cli/args/options';
import { COMMAND_NAMES } from '../../cli/args/types';
import { COMMAND_TABLE, USAGE } from '../../cli/commands';
import { type CliOutcome, runKfek } from '../helpers/cli-run';

const kfek = (...argv: string[]): Promise<CliOutcome> => runKfek(argv);

describe('the command table', () => {
  test.each(COMMAND_TABLE.map((command) => [command.name]))(
    '%s: `kfek help %s` and `--help` print the same page, listing every option of its row',
    async (name) => {
      // GIVEN its row
      const row = COMMAND_TABLE.find((command) => command.name === name);
      // WHEN
      const viaHelp = await kfek('help', name);
      const viaOption = await kfek(name, '--help');
      const viaShort = await kfek(name, '-h');
      // THEN
      expect(viaHelp).toEqual({ code: 0, out: viaOption.out, err: '' });
      expect(viaShort.out).toBe(viaOption.out);
      for (const option of Object.keys(row?.options ?? {})) {
        expect(viaHelp.out).toMatch(new RegExp(`^ {2}--${option}\\b`, 'm'));
      }
    },
  );

  test('holds every command once, with the options the bad-input sweep reads', () => {
    const names = COMMAND_TABLE.map((command) => command.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(ALL_OPTIONS).sort());
    for (const command of COMMAND_TABLE) expect(command.options).toBe(ALL_OPTIONS[command.name as never]);
    // The commands parsed into CliArgs (args/types.ts) are those whose page is the plain one.
    expect(
      COMMAND_TABLE.filter((c) => c.page === undefined)
        .map((c) => c.name)
        .sort(),
    ).toEqual([...COMMAND_NAMES].sort());
  });

  test('the overview has every command: its usage line and what it does', () => {
    for (const command of COMMAND_TABLE) {
      expect(USAGE).toContain(`  kfek ${command.synopsis}`);
      expect(USAGE).toContain(command.summary);
      expect(command.summary.startsWith(`${command.name} `)).toBe(true);
    }
  });

  test('fails when the first word names no command, listing every command of the table', async () => {
    const { code, out, err } = await kfek('frobnicate');
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toBe(
      `kfek: unknown command "frobnicate"; expected ${COMMAND_TABLE.map((c) => c.name).join(', ')} or help ` +
        '(run `kfek help` for usage)\n',
    );
  });
});

describe('kfek verify', () => {
  test.each([[['--endpoint', 'http://127.0.0.1:2']], [['--endpoint=http://127.0.0.1:2']]])(
    'fails when given --endpoint (%j), saying it reads OpenSearch only, at --opensearch',
    async (endpoint) => {
      const { code, out, err } = await kfek(
        'verify',
        '--run-id',
        'r',
        '--opensearch',
        'http://127.0.0.1:2',
        ...endpoint,
      );
      expect({ code, out }).toEqual({ code: 2, out: '' });
      expect(err).toBe(
        'kfek: verify: --endpoint is not an option of verify: it reads OpenSearch only, at --opensearch URL ' +
          '(run `kfek help` for usage)\n',
      );
    },
  );
});
