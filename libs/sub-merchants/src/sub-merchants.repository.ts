import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ListResult, ListSpec, PageRequest, queryList } from '@app/common';
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
}

/**
 * A PSP's sub-merchants as SQL. The text search (code prefix, name or email substring) cannot use
 * a b-tree index; it filters the PSP's newest-first range, so it reads at most the PSP's
 * sub-merchants (thousands, not millions). Clients page with the code (`starting_after`): the
 * internal id is never exposed.
 */
export function subMerchantListSpec(filter: SubMerchantListFilter): ListSpec {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const where = [`sm.merchant_id = ${bind(filter.merchantId)}`];
  if (filter.status) where.push(`sm.status = ${bind(filter.status)}`);
  if (filter.searchText) {
    const escaped = filter.searchText.replace(/[\\%_]/g, (character) => `\\${character}`);
    const prefix = bind(`${escaped}%`);
    const contains = bind(`%${escaped}%`);
    where.push(
      `(sm.code ILIKE ${prefix} OR sm.name ILIKE ${contains} OR sm.email ILIKE ${contains})`,
    );
  }
  return {
    table: 'sub_merchants',
    alias: 'sm',
    where,
    params,
    select: 'sm.*',
    from: 'sub_merchants sm',
    merchantId: filter.merchantId,
    cursorColumn: 'code',
    noun: 'sub-merchant',
  };
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

  /** One page, newest first, with what the pagination headers need. */
  async list(
    filter: SubMerchantListFilter,
    page: PageRequest,
  ): Promise<ListResult<SubMerchantRecord>> {
    return queryList<SubMerchantRecord>(this.dataSource, subMerchantListSpec(filter), page);
  }
}
