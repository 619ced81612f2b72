"""The annual report of a fictional instrument maker (original text and figures, CC0).

Exercises: two heading levels, narrative sections, a bulleted (and nested) highlights list,
an income statement, a balance sheet that runs over a page break, and page-foot footnotes.
The figures add up: the statements balance and the narrative quotes the same numbers.
"""

from .kinds import Question, Sample

CSS = """
body { font-family: sans-serif; font-size: 9.5pt; line-height: 1.35; }
h1 { font-family: sans-serif; font-size: 24pt; color: #0b3d5c; margin: 120pt 0 24pt 0; }
h2 { font-family: sans-serif; font-size: 15pt; color: #0b3d5c; margin: 16pt 0 6pt 0; }
h3 { font-family: sans-serif; font-size: 11.5pt; color: #1f5f85; margin: 10pt 0 4pt 0; }
p.cover { font-size: 14pt; margin: 0 0 6pt 0; }
p.tagline { font-size: 11pt; color: #555555; margin: 0 0 150pt 0; }
p.cover-small { font-size: 9pt; color: #555555; }
p.table-title { font-weight: bold; margin: 8pt 0 2pt 0; }
p.table-note { font-size: 8pt; color: #444444; margin: 0 0 8pt 0; }
th, td { font-size: 8.5pt; padding: 1.5pt 5pt; }
tr.total td { font-weight: bold; }
tr.subhead td { font-weight: bold; background-color: #f0f4f7; }
sup { font-size: 6.5pt; }
"""

HTML = """
<h1>Brightwater Instruments plc</h1>
<p class="cover">Annual Report and Accounts 2024</p>
<p class="tagline">Precision sensing for oceans, rivers and ports</p>
<p class="cover-small">Brightwater Instruments plc designs and manufactures hydrographic, water-quality
and port-monitoring instruments. The Group employs 1,640 people in nine countries and serves customers in
more than 70 markets. Registered in England and Wales, company number 03391847. Registered office: Quay
House, 8 Marine Parade, Southampton SO14 3JF.</p>
<p class="cover-small">This report is a fictional example written for software testing. All names,
figures and events in it are invented.</p>

<h2 style="page-break-before: always">1. 2024 at a glance</h2>
<h3>Financial highlights</h3>
<ul>
<li>Revenue up 9.1% to &#163;412.6 million (2023: &#163;378.1 million), with organic growth of 7.4% at
constant currency<sup id="fn-organic">1</sup>.</li>
<li>Adjusted operating profit of &#163;55.2 million<sup id="fn-adjusted">2</sup> (2023: &#163;43.3
million); adjusted operating margin up 190 basis points to 13.4%.</li>
<li>Statutory profit before tax of &#163;43.1 million (2023: &#163;30.1 million).</li>
<li>Basic earnings per share up 41% to 24.6p (2023: 17.5p).</li>
<li>Net debt reduced to &#163;25.1 million (2023: &#163;44.2 million), 0.37 times EBITDA.</li>
<li>Proposed final dividend of 6.8p, making a total of 10.2p for the year, up 13%.</li>
</ul>
<h3>Operational highlights</h3>
<ul>
<li>Order intake of &#163;431.0 million and a closing order book of &#163;198.0 million, the highest in
the Group&#8217;s history.</li>
<li>Three major product launches:
  <ul>
  <li>the HX-40 multibeam echo sounder for inshore hydrographic survey;</li>
  <li>the AquaTrace 6 multi-parameter water-quality sonde; and</li>
  <li>PortWatch Cloud, a subscription service for real-time berth and tide monitoring.</li>
  </ul></li>
<li>A new service and calibration centre opened in Gda&#324;sk, Poland, cutting turnaround times for
European customers from fifteen to six working days.</li>
<li>Scope 1 and 2 greenhouse gas emissions down 18% against the 2021 baseline.</li>
</ul>

<h2>2. Chair&#8217;s statement</h2>
<p>2024 was a year of strong progress for Brightwater. Demand for accurate, connected measurement of the
marine environment continued to grow, driven by offshore wind construction, tighter regulation of river and
coastal water quality, and ports investing to handle larger vessels. The Group converted that demand into
record orders and a substantial improvement in profitability, while continuing to invest in new products.</p>
<p>The Board is recommending a final dividend of 6.8p per share, which, together with the interim dividend
of 3.4p paid in October, makes a total of 10.2p for the year (2023: 9.0p). Subject to approval at the
Annual General Meeting on 14 May 2025, the final dividend will be paid on 20 June 2025 to shareholders on
the register on 23 May 2025.</p>
<p>During the year Margaret Osei stepped down as a non-executive director after nine years on the Board,
and we welcomed Tomasz Wr&#243;bel, formerly chief technology officer of a European survey-vessel operator,
who brings deep experience of the offshore energy market. On behalf of the Board I thank all of our
colleagues for their commitment and skill during a busy and successful year.</p>
<p><i>Eleanor Vance, Chair, 4 March 2025</i></p>

<h2>3. Chief Executive&#8217;s review</h2>
<h3>Market conditions</h3>
<p>Our three end markets all grew in 2024. Hydrographic survey benefited from the start of construction
on several large offshore wind projects in the North Sea and the Baltic, which require detailed seabed
surveys before and after cable laying. In water quality, new monitoring obligations on water companies in
the United Kingdom and continued investment under European river basin plans supported demand for our
sondes and telemetry. Port monitoring was steadier, with customers prioritising upgrades that allow larger
container ships to berth safely at all states of the tide.</p>
<h3>Operational performance</h3>
<p>The Marine Survey division grew revenue by 12% to &#163;186.4 million, helped by the launch of the
HX-40 in April. The Water Quality division grew revenue by 8% to &#163;149.7 million. The Ports and
Harbours division grew revenue by 5% to &#163;76.5 million, and PortWatch Cloud ended the year with 41
ports under subscription.</p>
<p>Supply chains were more stable than in previous years. We reduced average component lead times from
22 weeks to 14 weeks and cut inventory days from 101 to 96, while maintaining on-time delivery of
94% across the Group.</p>
<h3>Outlook</h3>
<p>We enter 2025 with a record order book and a strong pipeline of offshore and water-quality projects.
While we remain mindful of the uncertain macroeconomic environment, the Board expects further progress in
2025, with revenue growth in the mid single digits and a further modest improvement in adjusted operating
margin.</p>
<p><i>Rafael Mendes, Chief Executive Officer</i></p>

<h2 style="page-break-before: always">4. Financial review</h2>
<h3>Revenue and profit</h3>
<p>Group revenue increased by 9.1% to &#163;412.6 million. Gross margin improved from 37.5% to 39.1%,
reflecting a richer product mix, price increases implemented early in the year and lower freight costs.
Operating profit rose by 32% to &#163;48.3 million. Adjusted operating profit, which excludes
amortisation of acquired intangible assets of &#163;4.6 million and restructuring costs of &#163;2.3
million, was &#163;55.2 million. Research and development expenses increased to &#163;21.4 million, or
5.2% of revenue.</p>
<p>Net finance costs fell to &#163;5.2 million (2023: &#163;6.5 million) as borrowings were reduced. The
effective tax rate was 25.1% (2023: 23.9%). Profit for the year was &#163;32.3 million and basic earnings
per share were 24.6p.</p>

<p class="table-title">Consolidated income statement for the year ended 31 December 2024</p>
<table>
<tr><th>&#163; million</th><th class="num">2024</th><th class="num">2023</th></tr>
<tr><td>Revenue</td><td class="num">412.6</td><td class="num">378.1</td></tr>
<tr><td>Cost of sales</td><td class="num">(251.3)</td><td class="num">(236.4)</td></tr>
<tr class="total"><td>Gross profit</td><td class="num">161.3</td><td class="num">141.7</td></tr>
<tr><td>Distribution costs</td><td class="num">(18.9)</td><td class="num">(17.2)</td></tr>
<tr><td>Administrative expenses</td><td class="num">(74.8)</td><td class="num">(69.5)</td></tr>
<tr><td>Research and development expenses</td><td class="num">(21.4)</td><td class="num">(19.8)</td></tr>
<tr><td>Other operating income</td><td class="num">2.1</td><td class="num">1.4</td></tr>
<tr class="total"><td>Operating profit</td><td class="num">48.3</td><td class="num">36.6</td></tr>
<tr><td>Finance income</td><td class="num">1.2</td><td class="num">0.6</td></tr>
<tr><td>Finance costs</td><td class="num">(6.4)</td><td class="num">(7.1)</td></tr>
<tr class="total"><td>Profit before tax</td><td class="num">43.1</td><td class="num">30.1</td></tr>
<tr><td>Income tax expense</td><td class="num">(10.8)</td><td class="num">(7.2)</td></tr>
<tr class="total"><td>Profit for the year</td><td class="num">32.3</td><td class="num">22.9</td></tr>
<tr><td>Attributable to owners of the parent</td><td class="num">31.9</td><td class="num">22.6</td></tr>
<tr><td>Attributable to non-controlling interests</td><td class="num">0.4</td><td class="num">0.3</td></tr>
<tr><td>Basic earnings per share (pence)</td><td class="num">24.6</td><td class="num">17.5</td></tr>
<tr><td>Diluted earnings per share (pence)</td><td class="num">24.3</td><td class="num">17.3</td></tr>
</table>
<p class="table-note">All operations are continuing. Earnings per share are based on a weighted average of
129.7 million shares in issue (2023: 129.1 million).</p>

<h3>Cash flow and net debt</h3>
<p>Cash generated from operations was &#163;68.9 million (2023: &#163;51.3 million), a cash conversion of
102% of adjusted operating profit after adding back depreciation. Capital expenditure of &#163;22.7 million
included the fit-out of the Gda&#324;sk centre and new test tanks at Southampton. After tax, interest and
lease payments, free cash flow was &#163;33.5 million. The Group repaid &#163;2.4 million of its term loan,
and net debt<sup id="fn-netdebt">3</sup> fell to &#163;25.1 million.</p>
<p>The Group&#8217;s revolving credit facility of &#163;150 million runs to September 2028, of which
&#163;80.0 million was drawn at the year end. The covenants, tested half-yearly, require net debt of no more
than three times EBITDA and interest cover of at least four times; both were met with wide headroom.</p>

<h3>Capital allocation</h3>
<p>Our priorities for capital remain unchanged: first, investment in organic growth through research and
development and capital expenditure; second, a progressive dividend covered between two and three times by
adjusted earnings; third, bolt-on acquisitions that add technology or market access; and fourth, the return
of surplus capital to shareholders. In 2024 dividend cover was 2.8 times adjusted earnings.</p>
<p>We continue to evaluate acquisition opportunities in water-quality analytics and autonomous survey
platforms. Any acquisition must meet our return on invested capital hurdle of 12% by the end of its third
full year of ownership.</p>
<h3>Going concern and viability</h3>
<p>The directors have assessed the Group&#8217;s prospects over a three-year period to December 2027,
which matches the Group&#8217;s strategic planning cycle. The assessment included a severe but plausible
downside scenario combining a 20% fall in Marine Survey revenue in 2025 with a six-month disruption to the
supply of acoustic transducers. Under that scenario the Group would remain within its facility limits and
covenants without mitigating action.</p>
<p>The directors therefore have a reasonable expectation that the Group will be able to continue in
operation and meet its liabilities as they fall due over the period of their assessment, and the financial
statements have been prepared on a going concern basis.</p>

<h3>Balance sheet</h3>
<p>Net assets increased to &#163;254.5 million (2023: &#163;227.7 million), mainly reflecting retained
profit for the year. The retirement benefit obligation fell to &#163;12.4 million after an actuarial gain
on the UK defined benefit scheme, which is closed to new members and future accrual.</p>

<p class="table-title">Consolidated balance sheet at 31 December 2024</p>
<table>
<tr><th>&#163; million</th><th class="num">2024</th><th class="num">2023</th></tr>
<tr class="subhead"><td colspan="3">Non-current assets</td></tr>
<tr><td>Goodwill</td><td class="num">86.4</td><td class="num">86.4</td></tr>
<tr><td>Other intangible assets</td><td class="num">41.7</td><td class="num">44.9</td></tr>
<tr><td>Property, plant and equipment</td><td class="num">97.2</td><td class="num">91.5</td></tr>
<tr><td>Right-of-use assets</td><td class="num">18.6</td><td class="num">20.3</td></tr>
<tr><td>Deferred tax assets</td><td class="num">5.1</td><td class="num">6.0</td></tr>
<tr class="total"><td>Total non-current assets</td><td class="num">249.0</td><td class="num">249.1</td></tr>
<tr class="subhead"><td colspan="3">Current assets</td></tr>
<tr><td>Inventories</td><td class="num">72.8</td><td class="num">69.4</td></tr>
<tr><td>Trade and other receivables</td><td class="num">88.3</td><td class="num">81.7</td></tr>
<tr><td>Current tax assets</td><td class="num">1.4</td><td class="num">2.2</td></tr>
<tr><td>Cash and cash equivalents</td><td class="num">54.9</td><td class="num">38.2</td></tr>
<tr class="total"><td>Total current assets</td><td class="num">217.4</td><td class="num">191.5</td></tr>
<tr class="total"><td>Total assets</td><td class="num">466.4</td><td class="num">440.6</td></tr>
<tr class="subhead"><td colspan="3">Current liabilities</td></tr>
<tr><td>Trade and other payables</td><td class="num">(79.6)</td><td class="num">(74.2)</td></tr>
<tr><td>Borrowings</td><td class="num">(10.0)</td><td class="num">(10.0)</td></tr>
<tr><td>Lease liabilities</td><td class="num">(4.2)</td><td class="num">(4.5)</td></tr>
<tr><td>Current tax liabilities</td><td class="num">(6.3)</td><td class="num">(4.1)</td></tr>
<tr><td>Provisions</td><td class="num">(3.8)</td><td class="num">(5.2)</td></tr>
<tr class="total"><td>Total current liabilities</td><td class="num">(103.9)</td><td class="num">(98.0)</td></tr>
<tr class="subhead"><td colspan="3">Non-current liabilities</td></tr>
<tr><td>Borrowings</td><td class="num">(70.0)</td><td class="num">(72.4)</td></tr>
<tr><td>Lease liabilities</td><td class="num">(15.9)</td><td class="num">(17.4)</td></tr>
<tr><td>Retirement benefit obligations</td><td class="num">(12.4)</td><td class="num">(14.8)</td></tr>
<tr><td>Deferred tax liabilities</td><td class="num">(9.7)</td><td class="num">(10.3)</td></tr>
<tr class="total"><td>Total non-current liabilities</td><td class="num">(108.0)</td><td class="num">(114.9)</td></tr>
<tr class="total"><td>Total liabilities</td><td class="num">(211.9)</td><td class="num">(212.9)</td></tr>
<tr class="total"><td>Net assets</td><td class="num">254.5</td><td class="num">227.7</td></tr>
<tr class="subhead"><td colspan="3">Equity</td></tr>
<tr><td>Share capital</td><td class="num">6.5</td><td class="num">6.5</td></tr>
<tr><td>Share premium</td><td class="num">48.2</td><td class="num">47.6</td></tr>
<tr><td>Hedging and translation reserves</td><td class="num">3.9</td><td class="num">2.7</td></tr>
<tr><td>Retained earnings</td><td class="num">193.6</td><td class="num">169.0</td></tr>
<tr class="total"><td>Equity attributable to owners of the parent</td><td class="num">252.2</td><td class="num">225.8</td></tr>
<tr><td>Non-controlling interests</td><td class="num">2.3</td><td class="num">1.9</td></tr>
<tr class="total"><td>Total equity</td><td class="num">254.5</td><td class="num">227.7</td></tr>
</table>
<p class="table-note">The financial statements were approved by the Board on 4 March 2025 and signed on its
behalf by Rafael Mendes, Chief Executive Officer, and Priya Raman, Chief Financial Officer.</p>

<h2>5. Principal risks and uncertainties</h2>
<p>The Board has carried out a robust assessment of the principal risks facing the Group, including those
that would threaten its business model, future performance, solvency or liquidity. The principal risks are
summarised below in order of assessed residual severity.</p>
<ul>
<li><b>Offshore project timing.</b> Around a third of Marine Survey revenue depends on offshore wind and
interconnector projects whose timing is outside our control. We mitigate this by diversifying across
regions and by growing recurring service and rental income.</li>
<li><b>Component supply.</b> Some acoustic transducers and specialist semiconductors come from a small
number of suppliers. We hold strategic stock of critical parts and have qualified second sources for 80%
of them by value.</li>
<li><b>Cyber security.</b> PortWatch Cloud and our connected instruments increase our exposure to cyber
attack. The Group is certified to ISO/IEC 27001 and carries out independent penetration testing twice a
year.</li>
<li><b>Regulatory change.</b> Changes to water-quality or maritime regulation can delay customer
purchasing decisions as well as create new demand.</li>
<li><b>People.</b> Our growth depends on recruiting and retaining skilled engineers. Voluntary staff
turnover was 8.9% in 2024 (2023: 11.2%).</li>
</ul>

<h2>6. Sustainability</h2>
<p>Our products help customers to understand and protect the marine environment, and we aim to run our
own operations responsibly. In 2024 our Scope 1 and 2 greenhouse gas emissions were 3,120 tonnes of carbon
dioxide equivalent<sup id="fn-emissions">4</sup>, 18% below the 2021 baseline, mainly because our
Southampton and Gda&#324;sk sites now buy electricity generated from renewable sources. We have committed to
reduce Scope 1 and 2 emissions by 50% by 2030 and to reach net zero across all scopes by 2045.</p>
<p>We introduced a take-back scheme for end-of-life instruments in the United Kingdom and Germany, under
which 2,300 units were returned in 2024 for refurbishment or responsible recycling. Lost-time injury
frequency was 0.21 per 100,000 hours worked (2023: 0.34).</p>

<h2>7. Directors&#8217; responsibilities</h2>
<p>The directors are responsible for preparing the annual report and the financial statements in
accordance with applicable law and UK-adopted international accounting standards. The directors consider
that the annual report, taken as a whole, is fair, balanced and understandable and provides the
information necessary for shareholders to assess the Group&#8217;s position, performance, business model
and strategy.</p>
"""

FOOTNOTES = {
    "fn-organic": "1 Organic growth excludes the revenue of Tidewell Sensors Ltd, acquired in May 2023, for "
    "January to April 2024, and restates 2023 revenue at 2024 average exchange rates.",
    "fn-adjusted": "2 Adjusted operating profit excludes amortisation of acquired intangible assets (£4.6 "
    "million; 2023: £4.7 million) and restructuring costs (£2.3 million; 2023: £2.0 million).",
    "fn-netdebt": "3 Net debt is borrowings of £80.0 million less cash and cash equivalents of £54.9 million. "
    "It excludes lease liabilities of £20.1 million.",
    "fn-emissions": "4 Scope 2 emissions are reported on a market basis. On a location basis, Scope 1 and 2 "
    "emissions were 3,870 tonnes of carbon dioxide equivalent.",
}

QUESTIONS = (
    Question("ar-01", "What was Brightwater's revenue in 2024?",
             "Group revenue increased by 9.1% to £412.6 million"),
    Question("ar-02", "What is the total dividend for the year?",
             "makes a total of 10.2p for the year (2023: 9.0p)"),
    Question("ar-03", "How is adjusted operating profit defined?",
             "Adjusted operating profit excludes amortisation of acquired intangible assets"),
    Question("ar-04", "What were total assets at the end of 2024?", "Total assets"),
    Question("ar-05", "How much cash did the group hold at the year end?", "Cash and cash equivalents"),
    Question("ar-06", "What was the profit before tax in the income statement?", "Profit before tax"),
    Question("ar-07", "What are the covenants on the revolving credit facility?",
             "require net debt of no more than three times EBITDA and interest cover of at least four times"),
    Question("ar-08", "How much revenue did the Marine Survey division generate?",
             "The Marine Survey division grew revenue by 12% to £186.4 million"),
    Question("ar-09", "What is the outlook for 2025?",
             "with revenue growth in the mid single digits"),
    Question("ar-10", "By how much have Scope 1 and 2 emissions fallen?",
             "18% below the 2021 baseline"),
    Question("ar-11", "What does net debt exclude?", "It excludes lease liabilities of £20.1 million."),
    Question("ar-12", "What is the group's most severe principal risk?",
             "Around a third of Marine Survey revenue depends on offshore wind and interconnector projects"),
)

SAMPLE = Sample(
    name="financial_annual_report",
    title="Brightwater Instruments plc Annual Report and Accounts 2024",
    subject="Annual report of a fictional instrument manufacturer",
    paper="a4",
    css=CSS,
    html=HTML,
    header_left="Brightwater Instruments plc",
    header_right="Annual Report and Accounts 2024",
    footer_left="Fictional sample document - all figures invented",
    questions=QUESTIONS,
    footnotes=FOOTNOTES,
    header_on_first_page=False,
)
