package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.core.memory.PoolSlice;
import java.util.concurrent.atomic.AtomicBoolean;

/** A user buffer: a pooled slice plus the requested size. Closing defers the release to its stream's drop queue. */
final class CoreBuffer implements Buffer {
    private final CoreStream stream;
    private final long id;
    private final PoolSlice slice;
    private final long byteSize;
    private final AtomicBoolean closed = new AtomicBoolean();

    CoreBuffer(CoreStream stream, long id, PoolSlice slice, long byteSize) {
        this.stream = stream;
        this.id = id;
        this.slice = slice;
        this.byteSize = byteSize;
    }

    @Override
    public long byteSize() {
        return byteSize;
    }

    @Override
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            stream.releaseLater(slice);
        }
    }

    PoolSlice slice() {
        return slice;
    }

    CoreRuntime runtime() {
        return stream.runtime();
    }

    long id() {
        return id;
    }

    @Override
    public String toString() {
        return "buffer #" + id + " (" + byteSize + " B)";
    }
}
