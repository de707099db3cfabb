package dev.muster.controller.stream;

import dev.muster.common.rpc.ClientTls;
import dev.muster.common.stream.AllocationStreamClient;
import dev.muster.common.stream.ReconnectBackoff;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the extender's allocation stream into a {@link StreamTracker}, through the shared reconnecting
 * {@link AllocationStreamClient} (which follows leader redirects and resumes without gaps or repeats).
 *
 * <p>One thing the tracker cannot see for itself: a connection to a journal that is still empty sends nothing
 * after {@code started}, so no message ever says "synced". While the tracker has not synced, a daemon thread
 * checks every {@link #IDLE_CHECK_MILLIS} ms; a connection that stays up, with nothing applied, for two checks
 * in a row counts as synced (a non-empty journal sends its snapshot or first event right after {@code started}).
 *
 * <p>Lifecycle: construct, {@link #start()}, {@link #close()}. Thread-safe.
 */
public final class ExtenderStream implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ExtenderStream.class);
    static final long IDLE_CHECK_MILLIS = 500;

    private final AllocationStreamClient client;
    private final StreamTracker tracker;
    private final ScheduledExecutorService checker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "muster-stream-sync-check");
        t.setDaemon(true);
        return t;
    });
    private int idleConnectedChecks; // confined to the checker thread

    public ExtenderStream(String extenderAddress, Optional<ClientTls> tls, StreamTracker tracker) {
        this(new AllocationStreamClient(extenderAddress, AllocationStreamClient.ChannelFactory.netty(tls, extenderAddress), tracker,
                ReconnectBackoff.Policy.DEFAULT), tracker);
    }

    ExtenderStream(AllocationStreamClient client, StreamTracker tracker) {
        this.client = client;
        this.tracker = tracker;
    }

    public void start() {
        client.start();
        checker.scheduleWithFixedDelay(this::check, IDLE_CHECK_MILLIS, IDLE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void check() {
        if (tracker.synced()) {
            checker.shutdown();
            return;
        }
        if (client.isConnected() && client.lastAppliedSequence() == 0) {
            if (++idleConnectedChecks >= 2) {
                log.info("allocation stream connected to an empty journal ({}): nothing to replay", client.journalId());
                tracker.markSynced();
                checker.shutdown();
            }
        } else {
            idleConnectedChecks = 0;
        }
    }

    public AllocationStreamClient client() {
        return client;
    }

    @Override
    public void close() throws InterruptedException {
        checker.shutdownNow();
        client.close();
    }
}
