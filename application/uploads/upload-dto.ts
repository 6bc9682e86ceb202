import type { ImageUploadType } from '../../domain/accounts/asset-events.js';
import type { UploadView } from '../ports/read-models.js';

export interface UploadDto {
  identifier: string;
  /** Where the bytes are, and what templates name as an image source (`<img src>`, CSS `url()`, an IMAGE component's src). */
  href: string;
  contentType: ImageUploadType;
  size: number;
  width: number;
  height: number;
  createdAt: string;
}

export const toUploadDto = (view: UploadView, href: string): UploadDto => ({
  identifier: view.id,
  href,
  contentType: view.contentType,
  size: view.bytes,
  width: view.width,
  height: view.height,
  createdAt: view.createdAt.toISOString(),
});
