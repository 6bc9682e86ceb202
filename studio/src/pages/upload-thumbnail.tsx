import type { Upload } from '../types';
import { useThumbnail } from '../upload-thumbnails';

/** An uploaded image, read with the key and shown from a blob: URL; an empty square until it is there. */
export const UploadThumbnail = ({ upload, alt }: { upload: Upload; alt: string }) => {
  const url = useThumbnail(upload.href);
  return (
    <span className="thumbnail">
      {url ? <img src={url} alt={alt} width={upload.width} height={upload.height} data-thumbnail={upload.identifier} /> : null}
    </span>
  );
};
