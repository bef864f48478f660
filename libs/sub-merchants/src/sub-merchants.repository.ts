import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SubMerchantStatus } from './sub-merchant.entity';

export interface SubMerchantRecord {
  id: string;
  merchant_id: string;
  code: string;
  name: string;
  status: SubMerchantStatus;
  email: string | null;
  website: string | null;
  logo_url: string | null;
  metadata: Record<string, string>;
  livemode: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface NewSubMerchantRow {
  id: string;
  merchantId: string;
  code: string;
  name: string;
  status: SubMerchantStatus;
  email: string | null;
  website: string | null;
  logoUrl: string | null;
  metadata: Record<string, string>;
  livemode: boolean;
}

/** Columns a PATCH may change, by their SQL names. */
export type SubMerchantChanges = Partial<
  Pick<SubMerchantRecord, 'name' | 'status' | 'email' | 'website' | 'logo_url' | 'metadata'>
>;

export interface SubMerchantListFilter {
  merchantId: string;
  status?: SubMerchantStatus;
  searchText?: string;
  limit: number;
  offset: number;
}

@Injectable()
export class SubMerchantsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Null when the PSP already has a sub-merchant with this code (the unique key decides). */
  async insert(manager: EntityManager, row: NewSubMerchantRow): Promise<SubMerchantRecord | null> {
    const rows: SubMerchantRecord[] = await manager.query(
      `INSERT INTO sub_merchants (id, merchant_id, code, name, status, email, website, logo_url, metadata, livemode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (merchant_id, code) DO NOTHING
       RETURNING *`,
      [
        row.id,
        row.merchantId,
        row.code,
        row.name,
        row.status,
        row.email,
        row.website,
        row.logoUrl,
        JSON.stringify(row.metadata),
        row.livemode,
      ],
    );
    return rows[0] ?? null;
  }

  async findByCode(merchantId: string, code: string): Promise<SubMerchantRecord | null> {
    const rows: SubMerchantRecord[] = await this.dataSource.query(
      `SELECT * FROM sub_merchants WHERE merchant_id = $1 AND code = $2`,
      [merchantId, code],
    );
    return rows[0] ?? null;
  }

  async codesByIds(merchantId: string, ids: string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows: Array<{ id: string; code: string }> = await this.dataSource.query(
      `SELECT id, code FROM sub_merchants WHERE merchant_id = $1 AND id = ANY($2::text[])`,
      [merchantId, ids],
    );
    return new Map(rows.map((row) => [row.id, row.code]));
  }

  async update(
    merchantId: string,
    code: string,
    changes: SubMerchantChanges,
  ): Promise<SubMerchantRecord | null> {
    const params: unknown[] = [merchantId, code];
    const assignments = Object.entries(changes).map(([column, value]) => {
      params.push(column === 'metadata' ? JSON.stringify(value) : value);
      return `${column} = $${params.length}`;
    });
    // Wrapped in a CTE: TypeORM returns [rows, count] for a bare UPDATE ... RETURNING.
    const rows: SubMerchantRecord[] = await this.dataSource.query(
      `WITH updated AS (
         UPDATE sub_merchants SET ${[...assignments, 'updated_at = now()'].join(', ')}
          WHERE merchant_id = $1 AND code = $2 RETURNING *)
       SELECT * FROM updated`,
      params,
    );
    return rows[0] ?? null;
  }

  async list(filter: SubMerchantListFilter): Promise<{ rows: SubMerchantRecord[]; total: number }> {
    const params: unknown[] = [filter.merchantId];
    const where = ['merchant_id = $1'];
    const bind = (value: unknown) => `$${params.push(value)}`;
    if (filter.status) where.push(`status = ${bind(filter.status)}`);
    if (filter.searchText) {
      const escaped = filter.searchText.replace(/[\\%_]/g, (character) => `\\${character}`);
      const prefix = bind(`${escaped}%`);
      const contains = bind(`%${escaped}%`);
      where.push(`(code ILIKE ${prefix} OR name ILIKE ${contains} OR email ILIKE ${contains})`);
    }
    const condition = where.join(' AND ');
    const filterParams = [...params];
    const pageQuery = `SELECT * FROM sub_merchants WHERE ${condition}
      ORDER BY created_at DESC, id DESC LIMIT ${bind(filter.limit)} OFFSET ${bind(filter.offset)}`;
    const [rows, counted]: [SubMerchantRecord[], Array<{ total: string }>] = await Promise.all([
      this.dataSource.query(pageQuery, params),
      this.dataSource.query(
        `SELECT count(*) AS total FROM sub_merchants WHERE ${condition}`,
        filterParams,
      ),
    ]);
    return { rows, total: Number(counted[0].total) };
  }
}
