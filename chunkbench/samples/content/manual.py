"""The installation manual of a fictional environmental data logger (original text, CC0).

Exercises: three heading levels, code blocks (console, configuration file, HTTP, Python) whose
line breaks matter, nested numbered and bulleted lists, parameter tables, notes and warnings.
"""

from .kinds import Question, Sample

CSS = """
body { font-family: sans-serif; font-size: 9.5pt; line-height: 1.35; }
h1 { font-family: sans-serif; font-size: 22pt; margin: 0 0 4pt 0; }
h2 { font-family: sans-serif; font-size: 15pt; margin: 16pt 0 6pt 0; border-bottom: 0.8pt solid #333333; }
h3 { font-family: sans-serif; font-size: 12pt; margin: 11pt 0 4pt 0; }
h4 { font-family: sans-serif; font-size: 10.5pt; font-style: italic; margin: 8pt 0 3pt 0; }
p.subtitle { font-size: 12pt; color: #444444; margin: 0 0 14pt 0; }
div.note { border: 0.6pt solid #7a9cc6; background-color: #eef3fa; padding: 4pt 6pt; margin: 4pt 0 8pt 0; }
div.warning { border: 0.8pt solid #b3261e; background-color: #fbeeee; padding: 4pt 6pt; margin: 4pt 0 8pt 0; }
div.note p, div.warning p { margin: 0; }
code { font-size: 9pt; }
"""

HTML = """
<h1>TX-200 Environmental Data Logger</h1>
<p class="subtitle">Installation and Configuration Manual &#8211; firmware 3.2 &#8211; document KFS-TX200-IM
revision D</p>

<h2>1 Introduction</h2>
<h3>1.1 About this manual</h3>
<p>This manual explains how to install, configure and maintain the Kestrel Field Systems TX-200, a
battery-powered data logger for remote environmental monitoring. It is written for field technicians and
system integrators who are comfortable with basic electrical wiring and a command-line terminal. Commands
you type are shown in a monospaced font; the prompt <code>tx200&gt;</code> indicates the logger&#8217;s own
console.</p>
<h3>1.2 Product overview</h3>
<p>The TX-200 records up to eight analogue or digital sensor channels at intervals from 10 seconds to 24
hours, stores up to 2 million readings in internal flash memory, and sends data over LTE-M, NB-IoT or a
wired RS-485 link. It is housed in an IP67 polycarbonate enclosure and operates from &#8722;30 &#176;C to
+60 &#176;C.</p>
<h3>1.3 Safety information</h3>
<div class="warning"><p><b>WARNING:</b> The TX-200 contains a lithium thionyl chloride battery pack. Do not
recharge, crush, short-circuit or heat the pack above 85 &#176;C. Dispose of used packs through an approved
battery recycling scheme.</p></div>
<div class="note"><p><b>NOTE:</b> Installation near overhead power lines or in flood channels must follow
your site&#8217;s risk assessment. Kestrel Field Systems accepts no liability for damage caused by
incorrect installation.</p></div>

<h2>2 Installation</h2>
<h3>2.1 Package contents</h3>
<ul>
<li>TX-200 logger with internal battery pack (disconnected for shipping)</li>
<li>Mounting kit:
  <ul>
  <li>stainless steel pole clamps for poles of 40 to 60 mm diameter;</li>
  <li>wall bracket with four M6 fixings.</li>
  </ul></li>
<li>LTE-M/NB-IoT antenna with 3 m cable</li>
<li>USB-C service cable</li>
<li>Quick start card and calibration certificate</li>
</ul>
<h3>2.2 Mounting the logger</h3>
<ol>
<li>Choose a location that is above the highest expected flood level and has mobile signal of at least
two bars on the status display.</li>
<li>Fix the mounting hardware:
  <ul>
  <li>for pole mounting, fit both clamps at least 250 mm apart and tighten them to 8 N&#183;m;</li>
  <li>for wall mounting, drill four 8 mm holes using the bracket as a template.</li>
  </ul></li>
<li>Hang the logger on the bracket with the cable glands facing down, so that water cannot collect around
them.</li>
<li>Fit the antenna vertically, at least 0.5 m away from metal structures where possible.</li>
</ol>
<h3>2.3 Wiring the sensors</h3>
<p>Sensors connect to the terminal block inside the lid. Each channel has a supply output, a signal input
and a ground. Use shielded cable and connect the shield at the logger end only.</p>
<table>
<tr><th>Terminal</th><th>Function</th><th>Rating</th></tr>
<tr><td>V+1 to V+8</td><td>Switched sensor supply</td><td>12 V DC, 100 mA per channel</td></tr>
<tr><td>IN1 to IN8</td><td>Analogue input (0&#8211;2.5 V, 4&#8211;20 mA) or pulse input</td><td>Max. 30 V DC</td></tr>
<tr><td>GND</td><td>Signal and supply ground</td><td>&#8211;</td></tr>
<tr><td>A / B</td><td>RS-485 data lines (Modbus RTU)</td><td>Max. 32 devices</td></tr>
</table>
<div class="warning"><p><b>WARNING:</b> Disconnect the battery before wiring. Connecting a sensor to the
wrong terminal with the battery connected can permanently damage the input circuitry and is not covered by
the warranty.</p></div>

<h2>3 Configuration</h2>
<h3>3.1 Connecting to the console</h3>
<p>Connect the USB-C service cable to a laptop. The logger appears as a serial device; open it at 115200
baud with any terminal program. On Linux:</p>
<pre>$ ls /dev/ttyACM*
/dev/ttyACM0
$ screen /dev/ttyACM0 115200
TX-200 console, firmware 3.2.4 (build 2291)
tx200&gt; status
battery     3.61 V (87%)
signal      -97 dBm (LTE-M, cell 40412)
storage     182,400 of 2,000,000 readings used
next sample 2025-05-12T10:35:00Z</pre>
<p>Type <code>help</code> for a list of commands. The console closes after 10 minutes without input.</p>

<h3>3.2 The configuration file</h3>
<p>All settings are held in a single text file, <code>config.toml</code>, in the logger&#8217;s internal
storage. You can edit it on the console with <code>config edit</code>, or copy it to a laptop, edit it and
load it back with <code>config load</code>. A typical configuration for a river level station is shown
below.</p>
<pre>[device]
name = "weir-07"
site = "Ashby Mill weir, left bank"
timezone = "UTC"

[sampling]
interval_s = 300        # one reading every 5 minutes
average = 4             # mean of 4 fast readings per sample
channels = ["level", "water_temp", "battery"]

[channel.level]
input = "IN1"
type = "4-20mA"
scale = [0.0, 5.0]      # metres at 4 mA and 20 mA
warmup_ms = 1500

[alarm.level_high]
channel = "level"
threshold = 1.85
hysteresis = 0.05
action = ["sms", "fast_sampling"]</pre>
<h4>3.2.1 The sampling section</h4>
<p>The <code>interval_s</code> setting controls how often a sample is stored. Shorter intervals use more
battery: at 300 seconds with three channels, a new battery pack lasts about five years; at 60 seconds it
lasts about 14 months.</p>
<h4>3.2.2 Alarm sections</h4>
<p>Each <code>[alarm.NAME]</code> section watches one channel. When the reading rises above
<code>threshold</code>, the alarm triggers its actions; it clears only when the reading falls below
<code>threshold</code> minus <code>hysteresis</code>. The <code>fast_sampling</code> action switches the
logger to the rate set by <code>alarm_interval_s</code> until the alarm clears.</p>

<h3>3.3 Parameter reference</h3>
<table>
<tr><th>Parameter</th><th>Type</th><th>Default</th><th>Range</th><th>Description</th></tr>
<tr><td>interval_s</td><td>integer</td><td>900</td><td>10 to 86400</td><td>Seconds between stored samples</td></tr>
<tr><td>alarm_interval_s</td><td>integer</td><td>60</td><td>10 to 3600</td><td>Sampling interval while an alarm is active</td></tr>
<tr><td>average</td><td>integer</td><td>1</td><td>1 to 16</td><td>Fast readings averaged into one sample</td></tr>
<tr><td>warmup_ms</td><td>integer</td><td>500</td><td>0 to 60000</td><td>Sensor power-on time before reading</td></tr>
<tr><td>upload_every</td><td>integer</td><td>12</td><td>1 to 288</td><td>Samples collected before each upload</td></tr>
<tr><td>apn</td><td>string</td><td>"iot.kfs"</td><td>&#8211;</td><td>Mobile network access point name</td></tr>
<tr><td>timezone</td><td>string</td><td>"UTC"</td><td>IANA name</td><td>Time zone used on the display only</td></tr>
</table>
<div class="note"><p><b>NOTE:</b> Timestamps in stored data and in the API are always in UTC, whatever the
<code>timezone</code> setting.</p></div>

<h3>3.4 Checking the configuration</h3>
<p>Always validate a configuration before you leave the site. The <code>config check</code> command reports
every error with its line number and refuses to activate an invalid file:</p>
<pre>tx200&gt; config check
config.toml:14: channel.level: scale must have 2 values, got 1
1 error, configuration not activated
tx200&gt; config check
configuration OK (3 channels, 1 alarm)
tx200&gt; config activate</pre>

<h2>4 Retrieving data</h2>
<h3>4.1 The REST API</h3>
<p>Uploaded data is available from the Kestrel cloud service through a REST API. Authenticate with an API
token created in the web portal under <i>Account &#8250; Tokens</i>, sent in the
<code>Authorization</code> header. The following request returns the readings of one logger for a time
range:</p>
<pre>curl -H "Authorization: Bearer $KFS_TOKEN" \\
  "https://api.kestrel-field.example/v2/loggers/weir-07/readings?from=2025-05-01T00:00:00Z&amp;to=2025-05-02T00:00:00Z"</pre>
<p>The response is a JSON object with one entry per sample:</p>
<pre>{
  "logger": "weir-07",
  "channels": ["level", "water_temp", "battery"],
  "readings": [
    {"t": "2025-05-01T00:00:00Z", "v": [1.412, 11.8, 3.62]},
    {"t": "2025-05-01T00:05:00Z", "v": [1.415, 11.8, 3.62]}
  ],
  "next": null
}</pre>
<p>Responses are limited to 10,000 readings. When more are available, <code>next</code> holds the URL of the
next page of results.</p>
<h3>4.2 Reading data with Python</h3>
<p>The short script below downloads one day of readings and writes them to a CSV file. It uses only the
<code>requests</code> package and the Python standard library.</p>
<pre>import csv
import os

import requests

API = "https://api.kestrel-field.example/v2"
HEADERS = {"Authorization": f"Bearer {os.environ['KFS_TOKEN']}"}


def fetch(logger, start, end):
    url = f"{API}/loggers/{logger}/readings"
    params = {"from": start, "to": end}
    while url:
        page = requests.get(url, headers=HEADERS, params=params, timeout=30).json()
        yield from page["readings"]
        url, params = page["next"], None


with open("weir-07.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["time", "level_m", "water_temp_c", "battery_v"])
    for row in fetch("weir-07", "2025-05-01T00:00:00Z", "2025-05-02T00:00:00Z"):
        writer.writerow([row["t"], *row["v"]])</pre>

<h2>5 Maintenance</h2>
<h3>5.1 Replacing the battery pack</h3>
<ol>
<li>Download any data not yet uploaded with <code>data export</code>, or check that the portal shows a
recent upload.</li>
<li>Open the lid and disconnect the battery connector. The logger keeps its configuration and stored data
without power.</li>
<li>Fit the new pack (part number KFS-BP36) and reconnect it. Check that:
  <ul>
  <li>the status LED flashes green three times; and</li>
  <li><code>status</code> on the console reports a battery voltage above 3.5 V.</li>
  </ul></li>
<li>Reset the battery gauge with <code>battery reset</code> so that remaining-life estimates are
correct.</li>
</ol>
<h3>5.2 Updating the firmware</h3>
<p>Firmware updates are normally installed over the air during the nightly upload. To update a logger
manually, copy the signed firmware file to it over USB and install it from the console:</p>
<pre>tx200&gt; firmware install tx200-3.2.5.kfw
verifying signature ... ok
writing image ... 100%
rebooting in 5 s</pre>
<div class="warning"><p><b>WARNING:</b> Do not disconnect the battery or USB cable while the firmware is
being written. An interrupted update leaves the logger in recovery mode, from which it can only be restored
at a service centre.</p></div>

<h2>6 Troubleshooting</h2>
<table>
<tr><th>Symptom</th><th>Likely cause</th><th>What to do</th></tr>
<tr><td>Status LED flashes red twice every 10 s</td><td>No mobile network registration</td><td>Check the antenna connection and the <code>apn</code> setting; move the antenna higher</td></tr>
<tr><td>Readings of exactly 0.000 on a 4&#8211;20 mA channel</td><td>Open circuit or sensor not powered</td><td>Check wiring to IN and V+ terminals; increase <code>warmup_ms</code></td></tr>
<tr><td>Uploads succeed but data arrives late</td><td><code>upload_every</code> set too high</td><td>Reduce <code>upload_every</code>, at some cost to battery life</td></tr>
<tr><td>Console shows &#8220;storage full&#8221;</td><td>Internal memory full; oldest data is not overwritten by default</td><td>Export data, then run <code>data purge --uploaded</code></td></tr>
</table>
<p>If a problem persists, run <code>diag bundle</code> on the console and send the resulting file to
support@kestrel-field.example together with the logger&#8217;s serial number.</p>
"""

QUESTIONS = (
    Question("man-01", "What baud rate does the TX-200 console use?",
             "open it at 115200 baud with any terminal program"),
    Question("man-02", "How long does the battery last with a 5-minute sampling interval?",
             "at 300 seconds with three channels, a new battery pack lasts about five years"),
    Question("man-03", "What is the default value of interval_s?",
             "Seconds between stored samples"),
    Question("man-04", "When does an alarm clear?",
             "it clears only when the reading falls below"),
    Question("man-05", "How many readings can one API response return?",
             "Responses are limited to 10,000 readings."),
    Question("man-06", "What torque should the pole clamps be tightened to?",
             "tighten them to 8 N\u00b7m"),
    Question("man-07", "What should I check after fitting a new battery pack?",
             "the status LED flashes green three times"),
    Question("man-08", "What happens if the firmware update is interrupted?",
             "An interrupted update leaves the logger in recovery mode"),
    Question("man-09", "What does it mean when the status LED flashes red twice every 10 seconds?",
             "No mobile network registration"),
    Question("man-10", "How do I validate a configuration file before leaving the site?",
             "The config check command reports every error with its line number"),
    Question("man-11", "Which terminals carry the RS-485 data lines?",
             "RS-485 data lines (Modbus RTU)"),
    Question("man-12", "Which time zone are API timestamps in?",
             "Timestamps in stored data and in the API are always in UTC"),
)

SAMPLE = Sample(
    name="technical_manual",
    title="TX-200 Environmental Data Logger - Installation and Configuration Manual",
    subject="Installation manual of a fictional data logger",
    paper="letter",
    css=CSS,
    html=HTML,
    header_left="Kestrel Field Systems TX-200",
    header_right="Installation and Configuration Manual, rev. D",
    footer_left="KFS-TX200-IM rev. D (fictional sample manual)",
    questions=QUESTIONS,
)
