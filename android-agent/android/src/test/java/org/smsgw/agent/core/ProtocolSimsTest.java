package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;

import java.util.Arrays;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** The frames of several SIMs (protocol 4): sims in agent_hello, sim on sms and on report. */
public class ProtocolSimsTest {
    private static int simOf(String value) {
        return Protocol.parse("{\"type\":\"sms\",\"message_id\":\"msg_1\",\"to\":\"+33612345678\",\"text\":\"t\""
                + (value == null ? "" : ",\"sim\":" + value) + "}").sms.sim;
    }

    @Test
    public void whenAnSmsCarriesASimThenItIsReadAndAMalformedOneMeansTheDefaultSim() {
        assertEquals(1, simOf("1"));
        assertEquals(2, simOf("2"));
        assertEquals(8, simOf("8"));
        assertEquals(0, simOf(null));
        assertEquals(0, simOf("0"));
        assertEquals(0, simOf("-1"));
        assertEquals(0, simOf("1.5"));
        assertEquals(0, simOf("\"2\""));
        assertEquals(0, simOf("null"));
    }

    @Test
    public void whenAgentHelloIsBuiltThenItListsOneEntryASlotInOrderWithoutUnknownFields() throws Exception {
        JSONObject hello = new JSONObject(Protocol.agentHello(Arrays.asList(new Sim(2, "  ", "0612345678", 5),
                new Sim(1, "Orange F", "+33 6 12-34-56-78", 4), new Sim(2, "Dup", null, 6))));
        assertEquals(Protocol.VERSION, hello.getInt("protocol"));
        assertEquals("android", hello.getString("driver"));
        JSONArray sims = hello.getJSONArray("sims");
        assertEquals(2, sims.length());
        assertEquals(1, sims.getJSONObject(0).getInt("slot"));
        assertEquals("Orange F", sims.getJSONObject(0).getString("carrier"));
        assertEquals("+33612345678", sims.getJSONObject(0).getString("number"));
        assertEquals(2, sims.getJSONObject(1).getInt("slot"));
        assertFalse(sims.getJSONObject(1).has("carrier"));
        assertFalse(sims.getJSONObject(1).has("number"));
        assertEquals(0, new JSONObject(Protocol.agentHello(null)).getJSONArray("sims").length());
    }

    @Test
    public void whenASimIsMadeThenTheNumberIsKeptOnlyInE164AndTheCarrierCutTo64() {
        assertEquals("+33612345678", new Sim(1, null, "0033 6 12 34 56 78", 1).number);
        assertEquals("+14155550123", new Sim(1, null, "+1 (415) 555-0123", 1).number);
        assertNull(new Sim(1, null, "0612345678", 1).number);
        assertNull(new Sim(1, null, "", 1).number);
        assertNull(new Sim(1, null, null, 1).number);
        StringBuilder longName = new StringBuilder();
        for (int i = 0; i < 100; i++) longName.append('x');
        assertEquals(64, new Sim(1, longName.toString(), null, 1).carrier.length());
    }

    @Test
    public void whenAReportHasASimThenTheFrameSaysItAndOtherwiseHasNoSuchField() throws Exception {
        assertEquals(2, new JSONObject(Protocol.report(new Report("msg_1", Report.SENT, 0, null, false, null, 2))).getInt("sim"));
        assertFalse(new JSONObject(Protocol.report(new Report("msg_1", Report.SENT, 0, null, false, null, 0))).has("sim"));
    }

    @Test
    public void whenTheSimIsChosenThenTheSlotAskedForWinsAnAbsentOneIsAnErrorAndUnknownSimsMeanTheDefault() {
        Sim one = new Sim(1, "A", null, 10);
        Sim two = new Sim(2, "B", null, 20);
        Sim.Choice c = Sim.choose(2, Arrays.asList(one, two), 1);
        assertEquals(two, c.sim);
        assertEquals(2, c.slot);
        assertNull(c.error);

        c = Sim.choose(0, Arrays.asList(one, two), 1);
        assertNull(c.sim);
        assertEquals(1, c.slot);

        c = Sim.choose(3, Arrays.asList(one, two), 1);
        assertEquals(new SmsError(SmsError.DEVICE_ERROR, "SIM 3 absente"), c.error);

        c = Sim.choose(3, null, 0);
        assertNull(c.error);
        assertNull(c.sim);
        assertEquals(0, c.slot);
    }
}
