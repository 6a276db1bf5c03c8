import * as grpc from '@grpc/grpc-js';
import { AppError, ERROR_CATALOG, fromServiceError, isErrorCode, toServiceError } from '../src';

/** What a grpc-js client hands to its callback when a call fails. */
function clientError(status: Partial<grpc.StatusObject>): grpc.ServiceError {
  return Object.assign(new Error(status.details ?? ''), {
    code: status.code ?? grpc.status.UNKNOWN,
    details: status.details ?? '',
    metadata: status.metadata ?? new grpc.Metadata(),
  });
}

describe('errors', () => {
  it('when an AppError is made from a code, then it carries the catalog sentence and HTTP status', () => {
    const err = new AppError('INVALID_API_KEY');

    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('AppError');
    expect(err.message).toBe(ERROR_CATALOG.INVALID_API_KEY.message);
    expect(err.httpStatus).toBe(401);
    expect(new AppError('RATE_LIMIT_EXCEEDED').httpStatus).toBe(429);
  });

  it('when an AppError crosses the gRPC edge, then the same code, message, details and retry delay come back', () => {
    const details = [{ field: 'to', code: 'INVALID_PHONE_NUMBER', message: 'bad' }];
    const status = toServiceError(new AppError('VALIDATION_ERROR', { details, retryAfterSeconds: 7 }));

    expect(status.code).toBe(grpc.status.INVALID_ARGUMENT);
    const back = fromServiceError(clientError(status));
    expect(back).toBeInstanceOf(AppError);
    expect(back.code).toBe('VALIDATION_ERROR');
    expect(back.message).toBe(ERROR_CATALOG.VALIDATION_ERROR.message);
    expect(back.details).toEqual(details);
    expect(back.retryAfterSeconds).toBe(7);
  });

  it('when something that is not an AppError is thrown, then the status is INTERNAL without its text', () => {
    const status = toServiceError(new Error('password=hunter2 at db.internal'));

    expect(status.code).toBe(grpc.status.INTERNAL);
    expect(status.details).toBe(ERROR_CATALOG.INTERNAL_ERROR.message);
    expect(JSON.stringify(status.metadata?.getMap())).not.toContain('hunter2');
    expect(fromServiceError(clientError(status)).code).toBe('INTERNAL_ERROR');
  });

  it('when a call fails as unavailable or past its deadline without a code, then it reads SERVICE_UNAVAILABLE with a retry delay', () => {
    for (const code of [grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]) {
      const err = fromServiceError(clientError({ code, details: 'No connection established' }));
      expect(err.code).toBe('SERVICE_UNAVAILABLE');
      expect(err.retryAfterSeconds).toBe(5);
    }
  });

  it('when a call fails with an unknown status and no code, then it reads INTERNAL_ERROR', () => {
    expect(fromServiceError(clientError({ code: grpc.status.UNKNOWN })).code).toBe('INTERNAL_ERROR');
  });

  it('when a status carries a code that is not in the catalog, then it is not trusted', () => {
    const metadata = new grpc.Metadata();
    metadata.set('smsgw-error-code', 'toString');
    expect(isErrorCode('toString')).toBe(false);
    expect(fromServiceError(clientError({ code: grpc.status.INVALID_ARGUMENT, metadata })).code).toBe('INTERNAL_ERROR');
  });
});
