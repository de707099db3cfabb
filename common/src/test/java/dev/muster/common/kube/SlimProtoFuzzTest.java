package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Malformed protobuf never escapes as anything but an {@link IOException}: the captured frames and lists, with bytes
 * flipped, inserted or cut, either decode or fail the watch/list with an IOException (which the reflector retries) —
 * never an IndexOutOfBounds, NullPointer or ClassCast that would look like a bug.
 */
class SlimProtoFuzzTest {
    private static final List<byte[]> FRAMES = frames(SlimProtoTest.fixture("watch-pods.pb"));
    private static final byte[] LIST = SlimProtoTest.fixture("list-pods.pb");
    private static final byte[] NODES = SlimProtoTest.fixture("list-nodes.pb");

    private static List<byte[]> frames(byte[] stream) {
        List<byte[]> out = new ArrayList<>();
        SlimProtoFrames f = new SlimProtoFrames(new ByteArrayInputStream(stream));
        try {
            while (f.hasNext()) {
                out.add(f.next());
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    record Mutation(int kind, int at, int value) {
        byte[] apply(byte[] in) {
            if (in.length == 0) {
                return in;
            }
            int i = at % in.length;
            return switch (kind) {
                case 0 -> {
                    byte[] out = in.clone();
                    out[i] = (byte) value;
                    yield out;
                }
                case 1 -> java.util.Arrays.copyOf(in, i);
                default -> {
                    byte[] out = new byte[in.length + 1];
                    System.arraycopy(in, 0, out, 0, i);
                    out[i] = (byte) value;
                    System.arraycopy(in, i, out, i + 1, in.length - i);
                    yield out;
                }
            };
        }
    }

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        return Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, Integer.MAX_VALUE),
                Arbitraries.integers().between(0, 255)).as(Mutation::new).list().ofMinSize(1).ofMaxSize(3);
    }

    private static byte[] mutate(byte[] in, List<Mutation> ms) {
        byte[] b = in;
        for (Mutation m : ms) {
            b = m.apply(b);
        }
        return b;
    }

    @Property(tries = 3000)
    void aMutatedWatchFrameDecodesOrFailsWithAnIOException(@ForAll("mutations") List<Mutation> ms, @ForAll int which) {
        byte[] frame = mutate(FRAMES.get(Math.floorMod(which, FRAMES.size())), ms);
        try {
            assertThat(SlimPodProto.readEvent(frame).type()).isNotNull();
        } catch (IOException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }

    @Property(tries = 1000)
    void aMutatedListDecodesOrFailsWithAnIOException(@ForAll("mutations") List<Mutation> ms, @ForAll boolean pods) {
        byte[] list = mutate(pods ? LIST : NODES, ms);
        try {
            if (pods) {
                SlimPodProto.readList(new ByteArrayInputStream(list));
            } else {
                SlimNodeProto.readList(new ByteArrayInputStream(list));
            }
        } catch (IOException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }
}
