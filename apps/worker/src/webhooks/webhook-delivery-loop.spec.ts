import { Test } from '@nestjs/testing';
import { APP_CONFIG, AppConfig } from '@app/common';
import { DeliveryQueueRepository } from '@app/events/delivery/delivery-queue.repository';
import { EndpointHealth } from '@app/events/delivery/endpoint-health';
import { WebhookDispatcher } from '@app/events/delivery/webhook-dispatcher';
import { WebhookSender } from '@app/events/delivery/webhook-sender';
import { WebhookDeliveryLoop } from './webhook-delivery-loop';

describe('WebhookDeliveryLoop', () => {
  const config = {
    webhooks: {
      concurrency: 4,
      pollIntervalMs: 10,
      timeoutMs: 1_000,
      endpointConcurrency: 2,
      merchantConcurrency: 2,
    },
  } as AppConfig;

  async function context(withLoop: boolean) {
    const claim = jest.fn().mockResolvedValue([]);
    const app = await Test.createTestingModule({
      providers: [
        WebhookDispatcher,
        { provide: APP_CONFIG, useValue: config },
        { provide: DeliveryQueueRepository, useValue: { claim, release: jest.fn() } },
        { provide: WebhookSender, useValue: {} },
        { provide: EndpointHealth, useValue: {} },
        ...(withLoop ? [WebhookDeliveryLoop] : []),
      ],
    }).compile();
    await app.init();
    return { app, claim };
  }

  it('the dispatcher alone (a process that only imports the library) claims nothing', async () => {
    const { app, claim } = await context(false);
    // A started loop claims in the same turn it starts, before init() resolves.
    expect(claim).not.toHaveBeenCalled();
    await app.close();
  });

  it('the worker starts it at bootstrap and stops it at shutdown', async () => {
    const { app, claim } = await context(true);
    expect(claim).toHaveBeenCalled();
    // close() resolves only once the loop has ended: stop() waits for it.
    await app.close();
  });
});
