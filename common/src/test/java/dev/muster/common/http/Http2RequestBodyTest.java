package dev.muster.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Http2RequestBodyTest {
    private static final byte[] TEN = "0123456789".getBytes(StandardCharsets.US_ASCII);

    @Test
    void aBodyOfItsDeclaredLengthIsHandedOverInTheArrayItFilled() {
        Http2RequestBody body = new Http2RequestBody(10);
        body.write(TEN, 0, 4);
        body.write(TEN, 4, 6);
        byte[] first = body.bytes();
        assertThat(first).isEqualTo(TEN);
        assertThat(body.bytes()).as("no copy: the array never grew past the declared length").isSameAs(first);
    }

    @Test
    void aBodyWithoutALengthGrowsAsBytesArriveAndIsCutToWhatArrived() {
        Http2RequestBody body = new Http2RequestBody(-1);
        assertThat(body.bytes()).as("nothing arrived, nothing allocated").isEmpty();
        for (int i = 0; i < 10; i++) {
            body.write(TEN, i, 1);
        }
        assertThat(body.size()).isEqualTo(10);
        assertThat(body.declared()).isEqualTo(-1);
        assertThat(body.bytes()).isEqualTo(TEN);
    }

    @Test
    void aBodyLongerThanDeclaredIsStillKeptWholeSoTheConnectionCanTellItIsMalformed() {
        Http2RequestBody body = new Http2RequestBody(4);
        body.write(TEN, 0, 10);
        assertThat(body.size()).isEqualTo(10);
        assertThat(body.bytes()).isEqualTo(TEN);
    }

    @Test
    void droppedBytesAreForgotten() {
        Http2RequestBody body = new Http2RequestBody(10);
        body.write(TEN, 0, 10);
        body.drop();
        assertThat(body.size()).isZero();
        assertThat(body.bytes()).isEmpty();
    }
}
