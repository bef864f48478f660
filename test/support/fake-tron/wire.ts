/**
 * TEST DOUBLE helpers: java-tron's wire shapes (visible=false) that the fake TRON node's parts
 * share. Addresses are 41-prefixed lowercase hex.
 */
import { createHash } from 'node:crypto';
import { TronWeb, utils } from 'tronweb';

export type Json = Record<string, unknown>;

// tronweb's transaction helpers are untyped (`any`): these are the parts we use.
interface TronWebTransactionCodec {
  txJsonToPb(transaction: unknown): unknown;
  txPbToTxID(protobuf: unknown): string;
  txPbToRawDataHex(protobuf: unknown): string;
}
const codec: TronWebTransactionCodec = utils.transaction;

export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const TRANSFER_SELECTOR = 'a9059cbb';
export const TRANSFER_CALL = new RegExp(
  `^${TRANSFER_SELECTOR}0{24}([0-9a-f]{40})([0-9a-f]{64})$`,
  'i',
);

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
export const word = (hex: string): string => hex.padStart(64, '0');
export const hexAddress = (base58: string): string => TronWeb.address.toHex(base58).toLowerCase();
export const base58Address = (hex: string): string => TronWeb.address.fromHex(hex);
export const utf8Hex = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** txID and raw_data_hex exactly as tronweb (and so a node) encodes this raw_data. */
export function encode(rawData: unknown): { txID: string; raw_data_hex: string } {
  const protobuf = codec.txJsonToPb({ raw_data: rawData, visible: false });
  return {
    txID: codec.txPbToTxID(protobuf).replace(/^0x/, ''),
    raw_data_hex: codec.txPbToRawDataHex(protobuf).toLowerCase(),
  };
}

/** Util.printErrorMsg: {"Error": "<exception class> : <message>"}, with HTTP 200. */
export function nodeError(exceptionClass: string, message: string): Json {
  return { Error: `class ${exceptionClass} : ${message}` };
}

/** A Transfer log; addresses as 41-prefixed hex, the amount as hex. */
export function transferLog(contract: string, from: string, to: string, amountHex: string): Json {
  return {
    address: contract.slice(2).toLowerCase(),
    topics: [TRANSFER_TOPIC, word(from.slice(2).toLowerCase()), word(to.slice(2).toLowerCase())],
    data: word(amountHex),
  };
}

/** raw_data.contract[0] of a posted transaction: its type and parameter.value. */
export function firstContract(rawData: unknown): { type: string; value: Json } {
  const contract =
    isJson(rawData) && Array.isArray(rawData.contract) ? rawData.contract[0] : undefined;
  const parameter = isJson(contract) ? contract.parameter : undefined;
  const value = isJson(parameter) && isJson(parameter.value) ? parameter.value : {};
  return { type: isJson(contract) ? String(contract.type ?? '') : '', value };
}

/** A 41-hex address field of a contract's value, lowercase ('' when absent). */
export function addressField(value: Json, name: string): string {
  const field = value[name];
  return typeof field === 'string' ? field.toLowerCase() : '';
}

function varintLength(value: number): number {
  let length = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    length += 1;
  }
  return length;
}

// Constant.MAX_RESULT_SIZE_IN_TX: room for the result java-tron adds to every contract's bytes.
const MAX_RESULT_SIZE_IN_TX = 64;

/**
 * The bandwidth a transaction uses, as java-tron's BandwidthProcessor.consume counts it: the
 * serialized Transaction without `ret` (raw_data as field 1, each signature as field 2) plus 64
 * bytes for its one contract's result.
 */
export function bandwidthBytes(rawDataHex: string, signatures: string[]): number {
  const rawLength = rawDataHex.length / 2;
  const signaturesLength = signatures
    .map((signature) => signature.length / 2)
    .reduce((sum, length) => sum + 1 + varintLength(length) + length, 0);
  return 1 + varintLength(rawLength) + rawLength + signaturesLength + MAX_RESULT_SIZE_IN_TX;
}
