import type { Response } from 'express';
import { ApiException, ErrorCode } from '@app/common';
import { ConsoleUiFiles } from './console-ui-files';
import { findConsoleDistDir } from './console-dist-dir';

jest.mock('./console-dist-dir', () => ({ findConsoleDistDir: jest.fn() }));

/** A response that records what was sent. */
function fakeResponse() {
  const sent: { status?: number; body?: unknown } = {};
  const response = {
    status(code: number) {
      sent.status = code;
      return response;
    },
    type: () => response,
    setHeader: () => response,
    send(body: unknown) {
      sent.body = body;
      return response;
    },
  };
  return { response: response as unknown as Response, sent };
}

describe('ConsoleUiFiles', () => {
  it('answers 503 naming the build command while dist/console is missing', () => {
    jest.mocked(findConsoleDistDir).mockReturnValue(null);
    const files = new ConsoleUiFiles();
    let thrown: unknown;
    try {
      files.sendIndex('/console/sign-in', fakeResponse().response);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiException);
    expect((thrown as ApiException).code).toBe(ErrorCode.ServiceUnavailable);
    expect((thrown as ApiException).message).toContain('npm run console:build');
  });

  it('refuses asset names that are not a built file name, before touching the disk', () => {
    jest.mocked(findConsoleDistDir).mockReturnValue(null);
    const files = new ConsoleUiFiles();
    for (const name of ['..', '.env', 'index.html', 'a/b.js', 'x.js.map']) {
      const { response, sent } = fakeResponse();
      files.sendAsset(name, response);
      expect(sent.status).toBe(404);
    }
  });

  it('does not answer paths that name a file with the app', () => {
    jest.mocked(findConsoleDistDir).mockReturnValue(null);
    const { response, sent } = fakeResponse();
    new ConsoleUiFiles().sendIndex('/console/favicon.ico', response);
    expect(sent.status).toBe(404);
  });
});
