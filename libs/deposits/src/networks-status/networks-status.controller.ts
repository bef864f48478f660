import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequiresPermission } from '@app/auth';
import { ApiErrorResponses } from '@app/common';
import { NetworkStatusDto } from './dto/network-status.dto';
import { NetworksStatusService } from './networks-status.service';

@ApiTags('Networks')
@ApiBearerAuth()
@Controller('v1/networks')
export class NetworksStatusController {
  constructor(private readonly networks: NetworksStatusService) {}

  @Get()
  @RequiresPermission('checkout_sessions:read', 'payouts:read')
  @ApiOperation({
    operationId: 'listNetworks',
    summary: 'List networks and the health of payment detection',
    description:
      'Every network of this environment (testnets in the sandbox, mainnets in production), in a ' +
      'fixed order, as a bare JSON array: its tokens with contracts and decimals, the ' +
      "confirmations a payment needs, and the deposit watcher's head, lag and `health` " +
      '(`operational`, `delayed`, `down`, `not_watched`). The same for every merchant. When ' +
      'detection is delayed or down, payments are still safe: they are detected when it catches ' +
      'up, and the hosted checkout page tells the payer so.',
  })
  @ApiOkResponse({ type: [NetworkStatusDto], description: 'Every network, in a fixed order.' })
  @ApiErrorResponses(401, 429)
  async list(): Promise<NetworkStatusDto[]> {
    return this.networks.list();
  }

  @Get(':name')
  @RequiresPermission('checkout_sessions:read', 'payouts:read')
  @ApiOperation({
    operationId: 'getNetwork',
    summary: 'Get a network and the health of payment detection on it',
  })
  @ApiParam({
    name: 'name',
    description: 'Network name, as in `network` of a session (upper case).',
    example: 'ETHEREUM',
  })
  @ApiOkResponse({ type: NetworkStatusDto, description: 'The network.' })
  @ApiErrorResponses(401, 404, 429)
  async get(@Param('name') name: string): Promise<NetworkStatusDto> {
    return this.networks.get(name);
  }
}
