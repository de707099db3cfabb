package dev.muster.common.kube;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * The frames of a protobuf watch: each a 4-byte big-endian length and that many bytes. End of stream between frames
 * is the end of the watch; anywhere else it is a truncated frame. A reader belongs to the one thread reading its watch.
 */
final class SlimProtoFrames {
    /**
     * Largest watch frame accepted. The API server refuses objects over ~3 MiB (etcd's request limit), so a larger length
     * means a corrupt stream, not a large pod.
     */
    static final int MAX_FRAME = 64 << 20;

    private final InputStream in;
    private byte[] next;
    private boolean ended;

    SlimProtoFrames(InputStream in) {
        this.in = in;
    }

    /** Whether another frame follows (blocks until its length arrives or the stream ends). */
    boolean hasNext() throws IOException {
        if (next == null && !ended) {
            next = readFrame();
            ended = next == null;
        }
        return next != null;
    }

    /** The next frame's bytes; call {@link #hasNext} first. */
    byte[] next() throws IOException {
        if (!hasNext()) {
            throw new EOFException("no more watch frames");
        }
        byte[] f = next;
        next = null;
        return f;
    }

    private byte[] readFrame() throws IOException {
        int length = 0;
        for (int i = 0; i < 4; i++) {
            int b = in.read();
            if (b < 0) {
                if (i == 0) {
                    return null;
                }
                throw new SlimProto.MalformedException("watch frame: the stream ended inside a frame's 4-byte length (" + i + " bytes read)");
            }
            length = (length << 8) | b;
        }
        if (length < 0 || length > MAX_FRAME) {
            throw new SlimProto.MalformedException("watch frame: length " + Integer.toUnsignedString(length) + " is not a frame length (at most "
                    + MAX_FRAME + ")");
        }
        byte[] frame = new byte[length];
        int read = in.readNBytes(frame, 0, length);
        if (read < length) {
            throw new SlimProto.MalformedException("watch frame: the stream ended after " + read + " of the frame's " + length + " bytes");
        }
        return frame;
    }
}
