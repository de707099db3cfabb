package dev.muster.common.kube;

import dev.muster.common.config.Durations;
import dev.muster.core.time.BackoffCounter;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.options.ListOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ListerWatcher} that does not let an informer hammer the API server with watches that end at once.
 *
 * <p>client-java's reflector starts the next watch the moment the previous one ends normally. Against a real API
 * server a watch lasts minutes ({@code timeoutSeconds}), but a proxy or load balancer that closes watches early, or
 * an API server that answers them with an empty body, turns that into a tight loop: thousands of requests a second,
 * each logged by the server. client-go guards against it ("very short watch": a watch that lasted less than a second
 * and delivered nothing is an error and the reflector backs off); this class does the same for client-java: after
 * such a watch, the next one waits {@link #PAUSES} (1 s, doubling, at most 30 s), and any watch that delivers an
 * event (bookmarks and errors count) or lasts {@link #HEALTHY} starts over without a pause.
 *
 * <p>Thread-safe: the reflector thread calls {@link #list} and {@link #watch}; the watch it is reading may be closed
 * from another thread (the informer stopping); the streak is guarded by {@code this}.
 */
public final class PacedWatches<T extends KubernetesObject, L extends KubernetesListObject> implements ListerWatcher<T, L> {
    private static final Logger log = LoggerFactory.getLogger(PacedWatches.class);
    /** A watch that lasted this long is healthy even if it delivered nothing. */
    static final Duration HEALTHY = Duration.ofSeconds(1);
    static final dev.muster.core.time.Backoff PAUSES = new dev.muster.core.time.Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
    /** From this many short empty watches in a row on, the pause is logged (once per streak). */
    static final int LOG_AFTER = 3;

    /** How the reflector thread waits; interrupted when the informer stops. */
    @FunctionalInterface
    interface Pause {
        void pause(Duration d) throws InterruptedException;
    }

    private final ListerWatcher<T, L> delegate;
    private final String resource;
    private final LongSupplier nanoTime;
    private final Pause pause;
    private final BackoffCounter backoff = new BackoffCounter(PAUSES); // guarded by this
    private int shortEmptyStreak; // guarded by this

    PacedWatches(ListerWatcher<T, L> delegate, String resource, LongSupplier nanoTime, Pause pause) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.resource = Objects.requireNonNull(resource, "resource");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.pause = Objects.requireNonNull(pause, "pause");
    }

    /** Lists and watches {@code api} in all namespaces, paced. */
    public static <T extends KubernetesObject, L extends KubernetesListObject> PacedWatches<T, L> of(GenericKubernetesApi<T, L> api, String resource) {
        return new PacedWatches<>(allNamespaces(api), resource, System::nanoTime, d -> Thread.sleep(d.toMillis()));
    }

    /** A shared informer over {@code api} (all namespaces) whose watches are paced. */
    public static <T extends KubernetesObject, L extends KubernetesListObject> SharedIndexInformer<T> informer(SharedInformerFactory factory,
            GenericKubernetesApi<T, L> api, Class<T> type, String resource, long resyncMillis, BiConsumer<Class<T>, Throwable> onError) {
        return factory.sharedIndexInformerFor(of(api, resource), type, resyncMillis, onError);
    }

    /** A shared informer over {@code listerWatcher} (e.g. {@link SlimListerWatcher}) whose watches are paced. */
    public static <T extends KubernetesObject, L extends KubernetesListObject> SharedIndexInformer<T> informer(SharedInformerFactory factory,
            ListerWatcher<T, L> listerWatcher, Class<T> type, String resource, long resyncMillis, BiConsumer<Class<T>, Throwable> onError) {
        return factory.sharedIndexInformerFor(new PacedWatches<>(listerWatcher, resource, System::nanoTime, d -> Thread.sleep(d.toMillis())),
                type, resyncMillis, onError);
    }

    @Override
    public L list(CallGeneratorParams params) throws ApiException {
        return delegate.list(params);
    }

    @Override
    public Watchable<T> watch(CallGeneratorParams params) throws ApiException {
        Duration wait = null;
        int streak;
        synchronized (this) {
            streak = shortEmptyStreak;
            if (streak > 0) {
                wait = backoff.next();
            }
        }
        if (wait != null) {
            if (streak == LOG_AFTER) {
                log.warn("watching {}: {} watches in a row ended within {} without an event (a proxy or the API server closing "
                        + "watches early?); waiting before each new one, up to {}", resource, streak, Durations.format(HEALTHY), Durations.format(PAUSES.max()));
            }
            try {
                pause.pause(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the informer is stopping: its reflector exits at the next check
                return new Timed(EmptyWatch.instance());
            }
        }
        return new Timed(delegate.watch(params));
    }

    /** Short empty watches in a row so far (0 after a healthy one). */
    synchronized int shortEmptyStreak() {
        return shortEmptyStreak;
    }

    private synchronized void ended(long lastedNanos, boolean delivered) {
        if (delivered || lastedNanos >= HEALTHY.toNanos()) {
            if (shortEmptyStreak >= LOG_AFTER) {
                log.info("watching {} works again", resource);
            }
            shortEmptyStreak = 0;
            backoff.reset();
        } else {
            shortEmptyStreak++;
        }
    }

    /** Counts what a watch delivers and, when it is closed, how long it lasted. */
    private final class Timed implements Watchable<T> {
        private final Watchable<T> watch;
        private final long started = nanoTime.getAsLong();
        private volatile boolean delivered;
        private boolean closed; // guarded by this

        Timed(Watchable<T> watch) {
            this.watch = watch;
        }

        @Override
        public boolean hasNext() {
            return watch.hasNext();
        }

        @Override
        public Watch.Response<T> next() {
            Watch.Response<T> item = watch.next();
            delivered = true;
            return item;
        }

        @Override
        public Iterator<Watch.Response<T>> iterator() {
            return this;
        }

        @Override
        public void close() throws IOException {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            try {
                watch.close();
            } finally {
                ended(nanoTime.getAsLong() - started, delivered);
            }
        }
    }

    private static final class EmptyWatch<T> implements Watchable<T> {
        private static final EmptyWatch<?> INSTANCE = new EmptyWatch<>();

        @SuppressWarnings("unchecked")
        static <T> Watchable<T> instance() {
            return (Watchable<T>) INSTANCE;
        }

        @Override
        public boolean hasNext() {
            return false;
        }

        @Override
        public Watch.Response<T> next() {
            throw new NoSuchElementException();
        }

        @Override
        public Iterator<Watch.Response<T>> iterator() {
            return this;
        }

        @Override
        public void close() {}
    }

    private static <T extends KubernetesObject, L extends KubernetesListObject> ListerWatcher<T, L> allNamespaces(GenericKubernetesApi<T, L> api) {
        return new ListerWatcher<>() {
            @Override
            public L list(CallGeneratorParams params) throws ApiException {
                return api.list(options(params)).throwsApiException().getObject();
            }

            @Override
            public Watchable<T> watch(CallGeneratorParams params) throws ApiException {
                return api.watch(options(params));
            }
        };
    }

    private static ListOptions options(CallGeneratorParams params) {
        ListOptions options = new ListOptions();
        options.setResourceVersion(params.resourceVersion);
        options.setTimeoutSeconds(params.timeoutSeconds);
        return options;
    }
}
