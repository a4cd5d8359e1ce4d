// Type-checked with lib ["ES2022", "DOM"] and skipLibCheck false (tsconfig.es2022.json): the
// package's own types must compile for a user without the newer libs.
import { Pool, type PoolStats } from 'ringpool';

export async function run(): Promise<PoolStats> {
  const pool = await Pool.create({ workers: 2 });
  const sum: number = await pool.trySubmit((a: number, b: number) => a + b, [1, 2]);
  const stats = pool.stats();
  void sum;
  await pool.shutdown();
  return stats;
}
