import { NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { SandboxOnlyMiddleware } from './sandbox-only.middleware';

function requestWith(authorization?: string): Request {
  return {
    header: (name: string) => (name === 'authorization' ? authorization : undefined),
  } as never;
}

describe('SandboxOnlyMiddleware', () => {
  const sandbox = new SandboxOnlyMiddleware({ livemode: false } as AppConfig);
  const production = new SandboxOnlyMiddleware({ livemode: true } as AppConfig);

  it('lets a sandbox request through to authentication', () => {
    const next = jest.fn();
    sandbox.use(requestWith(`Bearer sk_test_${'a'.repeat(43)}`), {} as Response, next);
    sandbox.use(requestWith(undefined), {} as Response, next);
    expect(next).toHaveBeenCalledTimes(2);
  });

  it('answers 404 to a live key in the sandbox, and to everything in production', () => {
    const next = jest.fn();
    expect(() =>
      sandbox.use(requestWith(`Bearer sk_live_${'a'.repeat(43)}`), {} as Response, next),
    ).toThrow(NotFoundException);
    expect(() =>
      production.use(requestWith(`Bearer sk_test_${'a'.repeat(43)}`), {} as Response, next),
    ).toThrow(NotFoundException);
    expect(() => production.use(requestWith(undefined), {} as Response, next)).toThrow(
      NotFoundException,
    );
    expect(next).not.toHaveBeenCalled();
  });
});
