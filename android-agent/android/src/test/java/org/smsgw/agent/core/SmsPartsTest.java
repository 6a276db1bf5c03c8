package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/** Reassembly of the decoded parts (PDUs) of one SMS_RECEIVED intent. */
public class SmsPartsTest {
    @Test
    public void whenAnSmsComesInThreePartsThenItIsOneMessageWithTheTextInOrderAndTheFirstPartsTime() {
        List<SmsParts.Message> out = SmsParts.reassemble(Arrays.asList(
                new SmsParts.Part("+33612345678", "Bonjour, voici un long ", 1000),
                new SmsParts.Part("+33612345678", "message en trois ", 1001),
                new SmsParts.Part("+33612345678", "parties 👋", 1002)));

        assertEquals(1, out.size());
        assertEquals("+33612345678", out.get(0).from);
        assertEquals("Bonjour, voici un long message en trois parties 👋", out.get(0).text);
        assertEquals(1000, out.get(0).timestampMs);
    }

    @Test
    public void whenOneIntentMixesSendersThenEachSenderGetsItsOwnMessage() {
        List<SmsParts.Message> out = SmsParts.reassemble(Arrays.asList(
                new SmsParts.Part("+33611111111", "a1", 1),
                new SmsParts.Part("+33622222222", "b", 2),
                new SmsParts.Part("+33611111111", "a2", 3)));

        assertEquals(2, out.size());
        assertEquals("+33611111111", out.get(0).from);
        assertEquals("a1a2", out.get(0).text);
        assertEquals("+33622222222", out.get(1).from);
        assertEquals("b", out.get(1).text);
    }

    @Test
    public void whenAPartHasNoSenderOrNoBodyThenItIsSkippedOrEmpty() {
        List<SmsParts.Message> out = SmsParts.reassemble(Arrays.asList(
                new SmsParts.Part(null, "lost", 1), new SmsParts.Part("+336", null, 2), null));

        assertEquals(1, out.size());
        assertEquals("", out.get(0).text);
    }
}
