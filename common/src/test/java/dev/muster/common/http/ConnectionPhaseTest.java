package dev.muster.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** A connection's phase: the life it goes through, and CLOSING, which nothing written after it undoes. */
class ConnectionPhaseTest {

    @Test
    void aConnectionGoesFromHeadThroughItsAnswerToIdleAndBackToHeadOnItsNextBytes() {
        ConnectionPhase p = new ConnectionPhase(new Socket(), System.nanoTime());
        assertThat(p.now().kind()).isEqualTo(ConnectionPhase.Kind.HEAD);
        p.bytesArrived();
        assertThat(p.now().kind()).as("bytes of a head already begun do not restart its deadline").isEqualTo(ConnectionPhase.Kind.HEAD);
        p.body();
        p.busy();
        assertThat(p.now().waitsForClient()).isFalse();
        p.idle();
        assertThat(p.now().waitsForClient()).isTrue();
        p.bytesArrived();
        assertThat(p.now().kind()).isEqualTo(ConnectionPhase.Kind.HEAD);
    }

    @Test
    void aConnectionBeingClosedFromOutsideStaysSoWhateverItsThreadsWriteAfter() {
        ConnectionPhase p = new ConnectionPhase(new Socket(), System.nanoTime());
        p.busy();
        p.closing();
        p.idle();
        p.bytesArrived();
        p.body();
        p.busy();
        assertThat(p.closedFromOutside()).isTrue();
        assertThat(p.now().waitsForClient()).as("never offered for eviction again").isFalse();
    }

    @Test
    void writersRacingAClosingNeverUndoIt() throws InterruptedException {
        for (int round = 0; round < 200; round++) {
            ConnectionPhase p = new ConnectionPhase(new Socket(), System.nanoTime());
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                writers.add(Thread.ofPlatform().start(() -> {
                    await(go);
                    for (int i = 0; i < 200; i++) {
                        p.busy();
                        p.idle();
                        p.bytesArrived();
                        p.body();
                    }
                }));
            }
            Thread closer = Thread.ofPlatform().start(() -> {
                await(go);
                p.closing();
            });
            go.countDown();
            closer.join();
            for (Thread t : writers) {
                t.join();
            }
            assertThat(p.closedFromOutside()).as("round " + round).isTrue();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
