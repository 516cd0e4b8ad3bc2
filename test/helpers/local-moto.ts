/**
 * One moto server per test file with the local runner's SDK clients on it (scripts/local/aws-clients.ts), started
 * in `beforeAll` and stopped in `afterAll` (also when tests fail), for the tests of the local loops on their own.
 * moto listens on 127.0.0.1 only.
 */
import { localAwsClients, type LocalAwsClients } from '../../scripts/local/aws-clients';
import { startMoto, type MotoServer } from '../../scripts/moto-server';

export interface LocalMotoHandle {
  /** moto's endpoint URL; throws when called before `beforeAll`. */
  endpoint(): string;
  /** The local runner's clients on moto; throws when called before `beforeAll`. */
  clients(): LocalAwsClients;
}

export function useLocalMoto(region: string): LocalMotoHandle {
  let moto: MotoServer | undefined;
  let clients: LocalAwsClients | undefined;
  beforeAll(async () => {
    moto = await startMoto();
    clients = localAwsClients(moto.endpoint, region);
  }, 60_000);
  afterAll(async () => {
    clients?.destroy();
    await moto?.stop();
  });
  const notRunning = (): never => {
    throw new Error('moto is not running: use the handle inside a test or a later beforeAll.');
  };
  return {
    endpoint: () => moto?.endpoint ?? notRunning(),
    clients: () => clients ?? notRunning(),
  };
}
