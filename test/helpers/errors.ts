// Domain rules called directly: what they throw.
import { expect } from 'vitest';
import { AppError } from '../../src/errors.js';

/** The AppError a call throws (fails the test when it does not throw one). */
export function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected an error');
}
