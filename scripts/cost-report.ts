/**
 * `npm run cost-table`: prints docs/costs.md's tables, each computed by its own module: the volume table and the
 * delivery table (cost-table.ts), then domain or Serverless side by side (cost-kinds.ts, issue 42). The entry point
 * is a file of its own so cost-kinds.ts can use cost-table.ts's arithmetic without the two importing each other.
 */
import { costTable, deliveryTable } from './cost-table';
import { kindTable } from './cost-kinds';

console.log(costTable());
console.log();
console.log(deliveryTable());
console.log(`\n${kindTable()}`);
