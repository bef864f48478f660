import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Length,
} from 'class-validator';
import { EVENT_TYPES, EventType } from '../../event-types';

export const WEBHOOK_URL_MAX_LENGTH = 2048;

@ApiSchema({ name: 'CreateWebhookEndpointRequest' })
export class CreateWebhookEndpointDto {
  @ApiProperty({
    description:
      'Where events are POSTed. https with a public address (in sandbox and production alike; a ' +
      'local deployment may allow http and private addresses). Redirects are not followed.',
    example: 'https://shop.example/webhooks/payments',
    maxLength: WEBHOOK_URL_MAX_LENGTH,
  })
  @IsString({ message: 'url must be a string.' })
  @Length(1, WEBHOOK_URL_MAX_LENGTH, {
    message: `url must be 1 to ${WEBHOOK_URL_MAX_LENGTH} characters.`,
  })
  url: string;

  @ApiPropertyOptional({
    enum: EVENT_TYPES,
    isArray: true,
    description: 'Only these event types. Leave it out to receive every type, new ones included.',
    example: ['checkout.session.paid', 'payout.completed', 'payout.failed'],
  })
  @IsOptional()
  @IsArray({ message: 'events must be an array of event types.' })
  @ArrayMinSize(1, { message: 'events must name at least one type (leave it out for all).' })
  @ArrayMaxSize(EVENT_TYPES.length, { message: 'events lists a type more than once.' })
  @ArrayUnique({ message: 'events lists a type more than once.' })
  @IsIn(EVENT_TYPES, { each: true, message: `events must be among ${EVENT_TYPES.join(', ')}.` })
  events?: EventType[];

  @ApiPropertyOptional({ example: 'Order service', maxLength: 500 })
  @IsOptional()
  @IsString({ message: 'description must be a string.' })
  @Length(0, 500, { message: 'description must be at most 500 characters.' })
  description?: string;
}
