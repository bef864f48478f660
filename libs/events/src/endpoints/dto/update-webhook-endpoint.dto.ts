import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  ValidateIf,
} from 'class-validator';
import { EVENT_TYPES, EventType } from '../../event-types';
import { WEBHOOK_URL_MAX_LENGTH } from './create-webhook-endpoint.dto';

@ApiSchema({ name: 'UpdateWebhookEndpointRequest' })
export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ example: 'https://shop.example/webhooks/v2' })
  @IsOptional()
  @IsString({ message: 'url must be a string.' })
  @Length(1, WEBHOOK_URL_MAX_LENGTH, {
    message: `url must be 1 to ${WEBHOOK_URL_MAX_LENGTH} characters.`,
  })
  url?: string;

  @ApiPropertyOptional({
    enum: EVENT_TYPES,
    isArray: true,
    nullable: true,
    description: 'The new filter; null to receive every type.',
    example: ['payout.completed', 'payout.failed'],
  })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsArray({ message: 'events must be an array of event types, or null for all.' })
  @ArrayMinSize(1, { message: 'events must name at least one type (null for all).' })
  @ArrayMaxSize(EVENT_TYPES.length, { message: 'events lists a type more than once.' })
  @ArrayUnique({ message: 'events lists a type more than once.' })
  @IsIn(EVENT_TYPES, { each: true, message: `events must be among ${EVENT_TYPES.join(', ')}.` })
  events?: EventType[] | null;

  // type spelled out: `string | null` reflects as Object, which the document showed as `object`.
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Order service', maxLength: 500 })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsString({ message: 'description must be a string or null.' })
  @Length(0, 500, { message: 'description must be at most 500 characters.' })
  description?: string | null;

  @ApiPropertyOptional({
    description:
      'false stops deliveries (they wait); true starts them again, including those that waited, ' +
      'and clears `disabled_reason` and `failing_since`.',
    example: true,
  })
  @IsOptional()
  @IsBoolean({ message: 'enabled must be true or false.' })
  enabled?: boolean;
}
