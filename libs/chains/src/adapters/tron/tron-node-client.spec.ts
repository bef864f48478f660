import { headersFor } from './tron-node-client';

describe('headersFor', () => {
  it('sends the TronGrid key to TronGrid hosts only', () => {
    expect(headersFor('https://api.trongrid.io', 'key')).toEqual({ 'TRON-PRO-API-KEY': 'key' });
    expect(headersFor('https://nile.trongrid.io/', 'key')).toEqual({ 'TRON-PRO-API-KEY': 'key' });
    expect(headersFor('https://trongrid.io.example.com', 'key')).toEqual({});
    expect(headersFor('https://tron.example.com', 'key')).toEqual({});
    expect(headersFor('https://api.trongrid.io', undefined)).toEqual({});
  });
});
