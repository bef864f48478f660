// bench/payouts imports this path; it goes when bench/payouts moves onto bench/kit.
export * from '../kit/processes';
