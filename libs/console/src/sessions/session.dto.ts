import { IsString, Length } from 'class-validator';

export class SwitchMerchantDto {
  @IsString({ message: 'merchant_id must be a string.' })
  @Length(1, 100, { message: 'merchant_id must be 1 to 100 characters.' })
  merchant_id: string;
}
