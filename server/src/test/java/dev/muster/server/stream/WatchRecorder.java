package dev.muster.server.stream;

import dev.muster.proto.v1.WatchResponse;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Records what a raw Watch call receives, for tests that look at the wire protocol. Thread-safe. */
public final class WatchRecorder implements StreamObserver<WatchResponse> {
    private final List<WatchResponse> messages = new ArrayList<>(); // guarded by this
    public final CompletableFuture<Status> closed = new CompletableFuture<>();
    private volatile Metadata trailers = new Metadata();

    @Override
    public synchronized void onNext(WatchResponse value) {
        messages.add(value);
    }

    @Override
    public void onError(Throwable t) {
        Metadata m = Status.trailersFromThrowable(t);
        if (m != null) {
            trailers = m;
        }
        closed.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
        closed.complete(Status.OK);
    }

    public synchronized List<WatchResponse> messages() {
        return List.copyOf(messages);
    }

    /** The trailers of a call that ended in error (empty otherwise); read after {@link #closed} completed. */
    public Metadata trailers() {
        return trailers;
    }

    public synchronized int count() {
        return messages.size();
    }
}
