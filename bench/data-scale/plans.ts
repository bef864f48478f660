// Pages touched by each list, on a database bench:data-scale kept (--keep): EXPLAIN ANALYZE with
// BUFFERS of the lists' statements. Usage: ts-node ... bench/data-scale/plans.ts
import { Measurements } from './measure';
import { DATABASE_URL } from './seed';

async function main(): Promise<void> {
  const measure = new Measurements(DATABASE_URL, 0, 0);
  await measure.connect();
  try {
    const sizes = await measure.sizes();
    console.log(JSON.stringify(sizes));
    console.log('| list | pages touched | execution ms |\n| --- | ---: | ---: |');
    for (const plan of await measure.plans()) {
      console.log(`| ${plan.name} | ${plan.buffers} | ${plan.execution_ms.toFixed(2)} |`);
    }
  } finally {
    await measure.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
