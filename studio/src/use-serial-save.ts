import { useRef } from 'react';
import { createSerialSave, type SerialSave } from './serial-save';

/** One queue for the page's life, always calling the latest `write`. */
export const useSerialSave = <T>(write: (value: T) => Promise<void>): SerialSave<T> => {
  const latestWrite = useRef(write);
  latestWrite.current = write;
  const saver = useRef<SerialSave<T> | null>(null);
  saver.current ??= createSerialSave<T>((value) => latestWrite.current(value));
  return saver.current;
};
