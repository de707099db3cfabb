package dev.muster.controller.stream;

import dev.muster.controller.rpc.ClientTls;
import dev.muster.controller.stream.AllocationStreamClient;
import dev.muster.core.time.BackoffCounter;
import java.util.Optional;

/**
 * Follows the extender's allocation stream into a {@link StreamTracker}, through the shared reconnecting
 * {@link AllocationStreamClient} (which follows leader redirects, resumes without gaps or repeats, and says
 * when a connection has caught up — also with an empty journal, from the head the server announces).
 *
 * <p>Lifecycle: construct, {@link #start()}, {@link #close()}. Thread-safe.
 */
public final class ExtenderStream implements AutoCloseable {
    private final AllocationStreamClient client;

    public ExtenderStream(String extenderAddress, Optional<ClientTls> tls, StreamTracker tracker) {
        this(new AllocationStreamClient(extenderAddress, AllocationStreamClient.ChannelFactory.netty(tls, extenderAddress), tracker,
                BackoffCounter.DEFAULT));
    }

    ExtenderStream(AllocationStreamClient client) {
        this.client = client;
    }

    public void start() {
        client.start();
    }

    public AllocationStreamClient client() {
        return client;
    }

    @Override
    public void close() throws InterruptedException {
        client.close();
    }
}
