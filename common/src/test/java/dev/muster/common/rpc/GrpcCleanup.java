package dev.muster.common.rpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * JUnit-5 stand-in for grpc-testing's cleanup rule: registers channels, servers, executors and other
 * closeables, and on {@link #close()} (call it from {@code @AfterEach}) shuts them down now, newest first,
 * and waits for each to terminate. Not thread-safe: used from the test thread.
 */
public final class GrpcCleanup {
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    public ManagedChannel register(ManagedChannel channel) {
        resources.push(() -> {
            channel.shutdownNow();
            channel.awaitTermination(5, TimeUnit.SECONDS);
        });
        return channel;
    }

    public Server register(Server server) {
        resources.push(() -> {
            server.shutdownNow();
            server.awaitTermination(5, TimeUnit.SECONDS);
        });
        return server;
    }

    public <E extends ExecutorService> E register(E executor) {
        resources.push(() -> {
            executor.shutdownNow();
            executor.awaitTermination(5, TimeUnit.SECONDS);
        });
        return executor;
    }

    public <C extends AutoCloseable> C register(C closeable) {
        resources.push(closeable);
        return closeable;
    }

    public void close() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
