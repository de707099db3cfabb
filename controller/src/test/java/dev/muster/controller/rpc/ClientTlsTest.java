package dev.muster.controller.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientTlsTest {
    @Test
    void noTlsFlagsMeanPlaintext() {
        assertThat(ClientTls.fromFiles("--extender-tls", null, null, "")).isEmpty();
    }

    @Test
    void aClientCertificateWithoutItsKeyIsRejectedNamingTheFlag(@TempDir Path dir) throws Exception {
        Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        assertThatThrownBy(() -> ClientTls.fromFiles("--extender-tls", null, cert.toString(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--extender-tls-key-file missing");
    }
}
