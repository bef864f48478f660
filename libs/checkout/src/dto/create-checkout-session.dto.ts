import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUrl, Length, Matches, MaxLength } from 'class-validator';
import { CURRENCIES, Currency, NETWORK_NAMES, NetworkName } from '@app/chains';
import { IsDecimalAmount } from '@app/common';

const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

@ApiSchema({ name: 'CreateCheckoutSessionRequest' })
export class CreateCheckoutSessionDto {
  @ApiProperty({
    description:
      'Price in the pricing currency, as a decimal string (at most 12 integer and 6 fractional digits). ' +
      'The converted settlement amount must be between 0.01 and 10000000.',
    example: '49.99',
    pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,6})?$',
  })
  @IsDecimalAmount({ maxIntegerDigits: 12, maxFractionDigits: 6 })
  pricing_amount: string;

  @ApiProperty({
    description:
      'Currency the price is expressed in: USD, USDT or USDC (1:1), or a fiat code of the rate table ' +
      '(EUR, GBP, JPY, ...), converted at the current rate.',
    example: 'USD',
  })
  @IsString({ message: 'pricing_currency must be a currency code such as "USD".' })
  @Matches(/^[A-Z]{3,5}$/, {
    message: 'pricing_currency must be an upper-case code such as "USD".',
  })
  pricing_currency: string;

  @ApiProperty({
    enum: CURRENCIES,
    description: 'Stablecoin the customer pays in.',
    example: 'USDT',
  })
  @IsIn(CURRENCIES, { message: `currency must be one of ${CURRENCIES.join(', ')}.` })
  currency: Currency;

  @ApiProperty({
    enum: NETWORK_NAMES,
    description:
      "Network the customer pays on. The sandbox uses each network's testnet, production its mainnet. " +
      'Not every currency exists on every network: an unsupported pair is a 422 `unsupported_network_currency`.',
    example: 'TRON',
  })
  @IsIn(NETWORK_NAMES, { message: `network must be one of ${NETWORK_NAMES.join(', ')}.` })
  network: NetworkName;

  @ApiPropertyOptional({
    description:
      'Your own reference (order id), echoed back and shown to support. Up to 255 characters.',
    example: 'order_1042',
    maxLength: 255,
  })
  @IsOptional()
  @IsString({ message: 'client_reference_id must be a string.' })
  @Length(1, 255, { message: 'client_reference_id must be 1 to 255 characters.' })
  client_reference_id?: string;

  @ApiPropertyOptional({
    description:
      'Where the hosted page sends the customer after payment. http(s) only, up to 2048 characters.',
    example: 'https://shop.example.com/orders/1042/thanks',
    format: 'uri',
    maxLength: 2048,
  })
  @IsOptional()
  @IsString({ message: 'success_url must be an http(s) URL.' })
  @MaxLength(2048, { message: 'success_url must be at most 2048 characters.' })
  @IsUrl(HTTP_URL, { message: 'success_url must be an http(s) URL.' })
  success_url?: string;

  @ApiPropertyOptional({
    description:
      'Where the hosted page sends the customer who leaves without paying. http(s) only.',
    example: 'https://shop.example.com/cart',
    format: 'uri',
    maxLength: 2048,
  })
  @IsOptional()
  @IsString({ message: 'cancel_url must be an http(s) URL.' })
  @MaxLength(2048, { message: 'cancel_url must be at most 2048 characters.' })
  @IsUrl(HTTP_URL, { message: 'cancel_url must be an http(s) URL.' })
  cancel_url?: string;
}
