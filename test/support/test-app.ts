import type { INestApplication } from '@nestjs/common';
import type { App } from 'supertest/types';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeysService, MerchantsService } from '@app/auth';
import { createApiApp } from '../../apps/api/src/create-api-app';

export interface TestMerchant {
  id: string;
  apiKey: string;
  apiKeyId: string;
  name: string;
}

/** The real API (same module, pipes, filters and HTTP setup as production) on the test database. */
export class TestApi {
  /** Ids of the merchants this app created: a suite's own, for checks that must not see others'. */
  readonly merchantIds: string[] = [];

  private constructor(readonly app: INestApplication) {}

  static async start(): Promise<TestApi> {
    const app = await createApiApp();
    await app.init();
    return new TestApi(app);
  }

  get http(): App {
    return this.app.getHttpServer() as App;
  }

  get dataSource(): DataSource {
    return this.app.get(DataSource);
  }

  async createMerchant(
    input: { name?: string; kind?: 'direct' | 'psp'; logoUrl?: string | null } = {},
  ): Promise<TestMerchant> {
    const merchant = await this.app.get(MerchantsService).create({
      name: input.name ?? 'Test Shop',
      kind: input.kind ?? 'direct',
      logoUrl: input.logoUrl ?? null,
    });
    const key = await this.app.get(ApiKeysService).create(merchant.id);
    this.merchantIds.push(merchant.id);
    return { id: merchant.id, apiKey: key.api_key, apiKeyId: key.id, name: merchant.name };
  }

  get(path: string, merchant: TestMerchant) {
    return request(this.http).get(path).set('Authorization', `Bearer ${merchant.apiKey}`);
  }

  post(path: string, merchant: TestMerchant, body: unknown, headers: Record<string, string> = {}) {
    return request(this.http)
      .post(path)
      .set({ Authorization: `Bearer ${merchant.apiKey}`, ...headers })
      .send(body as object);
  }

  patch(path: string, merchant: TestMerchant, body: unknown) {
    return request(this.http)
      .patch(path)
      .set('Authorization', `Bearer ${merchant.apiKey}`)
      .send(body as object);
  }

  delete(path: string, merchant: TestMerchant) {
    return request(this.http).delete(path).set('Authorization', `Bearer ${merchant.apiKey}`);
  }

  async count(table: string, where = 'true', params: unknown[] = []): Promise<number> {
    const rows: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) AS count FROM ${table} WHERE ${where}`,
      params,
    );
    return Number(rows[0].count);
  }

  async close(): Promise<void> {
    await this.app.close();
  }
}
