"""A county government's request for proposals for IT support (original text, CC0).

Exercises: "SECTION n: TITLE" headings, "shall"/"must" requirement statements, specifications,
a CLIN pricing table, terms and conditions, and evaluation criteria with scoring weights.
"""

from .kinds import Question, Sample

CSS = """
body { font-family: Times; font-size: 10.5pt; line-height: 1.3; }
h1 { font-family: Times; font-size: 17pt; text-align: center; margin: 0 0 4pt 0; }
h2 { font-family: Times; font-size: 13pt; margin: 16pt 0 6pt 0; }
h3 { font-family: Times; font-size: 11pt; margin: 9pt 0 4pt 0; }
p.center { text-align: center; margin: 0 0 3pt 0; }
p.issuer { text-align: center; font-size: 11pt; font-weight: bold; margin: 0 0 12pt 0; }
p.req { margin: 0 0 4pt 22pt; }
th, td { font-size: 9.5pt; }
td.num, th.num { text-align: right; }
"""

HTML = """
<p class="issuer">RIVERBEND COUNTY<br/>OFFICE OF INFORMATION TECHNOLOGY</p>
<h1>REQUEST FOR PROPOSALS</h1>
<p class="center"><b>RFP No. RC-OIT-2025-031</b></p>
<p class="center"><b>Managed Service Desk and End-User Support Services</b></p>
<p class="center">Issue date: February 10, 2025</p>
<br/>
<table>
<tr><th>Event</th><th>Date and time (Central Time)</th></tr>
<tr><td>RFP issued</td><td>February 10, 2025</td></tr>
<tr><td>Pre-proposal conference (virtual, optional)</td><td>February 18, 2025, 10:00 a.m.</td></tr>
<tr><td>Deadline for written questions</td><td>February 24, 2025, 2:00 p.m.</td></tr>
<tr><td>Answers to questions posted as an addendum</td><td>March 3, 2025</td></tr>
<tr><td>Proposal due date</td><td>March 17, 2025, 2:00 p.m.</td></tr>
<tr><td>Oral presentations (shortlisted offerors only)</td><td>Week of April 7, 2025</td></tr>
<tr><td>Anticipated contract start</td><td>July 1, 2025</td></tr>
</table>
<p>Issuing officer: Marcus Delaney, Senior Procurement Analyst, Riverbend County Purchasing Division,
400 Courthouse Square, Suite 210, Riverbend. All communication about this solicitation must be directed in
writing to the issuing officer at procurement@riverbend-county.example. Offerors shall not contact any other
County employee or elected official about this solicitation from the issue date until contract award;
doing so may result in disqualification.</p>

<h2>SECTION 1: INTRODUCTION</h2>
<h3>1.1 Purpose</h3>
<p>Riverbend County (the &#8220;County&#8221;) is seeking proposals from qualified firms (&#8220;Offerors&#8221;)
to provide a managed service desk, desktop support, and IT asset management services for approximately
2,400 County employees at 31 sites. The County intends to award a single firm fixed-price contract with
time-and-materials line items for optional project work.</p>
<h3>1.2 Background</h3>
<p>The Office of Information Technology (OIT) currently provides end-user support with 14 County staff and
a patchwork of short-term contracts. In calendar year 2024 the service desk received 38,600 contacts, of
which 61% were by telephone, 27% by email and 12% through the self-service portal. The County&#8217;s
environment includes approximately 2,650 Windows laptops and desktops, 420 iPads used by field staff, 310
multifunction printers and a Microsoft 365 tenant. OIT staff currently assigned to end-user support will be
redeployed to infrastructure and security projects.</p>
<h3>1.3 Contract term</h3>
<p>The initial contract term is three (3) years from the contract start date, with two (2) optional renewal
periods of one (1) year each, exercisable at the sole discretion of the County.</p>
<h3>1.4 Minimum qualifications</h3>
<p>To be considered, an Offeror must have provided managed service desk services to at least two (2)
public-sector or enterprise clients with 1,500 or more end users each, continuously for at least three (3)
years within the last five (5) years. Offerors must be registered to do business in the State and must not
be debarred or suspended from contracting by any federal, state or local government agency.</p>

<h2>SECTION 2: SCOPE OF WORK</h2>
<h3>2.1 Service desk</h3>
<p>The Contractor will operate a single point of contact for all end-user IT incidents and service
requests, available by telephone, email, chat and the self-service portal. Standard coverage is 7:00 a.m.
to 7:00 p.m. Central Time, Monday through Friday, excluding County holidays, with on-call support for
critical incidents at all other times, including for the 911 dispatch center and the County jail.</p>
<h3>2.2 Desktop and field support</h3>
<p>The Contractor will provide on-site technicians at the County Administration Building and the Public
Safety Center, and dispatched support for the remaining sites, for hardware break-fix, software
installation, device imaging, peripheral support and moves, adds and changes.</p>
<h3>2.3 IT asset management</h3>
<p>The Contractor will maintain the County&#8217;s inventory of end-user devices from receipt to disposal,
including asset tagging, assignment records, warranty tracking and certified data destruction at end of
life.</p>
<h3>2.4 Transition</h3>
<p>The Contractor will plan and carry out the transition of services from the County within ninety (90)
days of the contract start date, including knowledge transfer, documentation of procedures and migration
of open tickets.</p>

<h2>SECTION 3: REQUIREMENTS</h2>
<p>The requirements in this section are mandatory. A proposal that does not demonstrate that the Offeror
will meet each mandatory requirement may be found non-responsive and excluded from further evaluation.</p>
<h3>3.1 General requirements</h3>
<p class="req">R-01. The Contractor shall provide all personnel, tools, and management necessary to perform
the services described in Section 2.</p>
<p class="req">R-02. The Contractor shall use the County&#8217;s ServiceNow instance as the system of record
for all incidents, requests, changes and assets. The Contractor must not store County ticket data in any
other system.</p>
<p class="req">R-03. The Contractor shall answer service desk calls in English and Spanish, and shall
provide access to interpretation in other languages on request.</p>
<p class="req">R-04. The Contractor must maintain a staffed presence at the Public Safety Center from 7:00
a.m. to 7:00 p.m. on business days.</p>
<h3>3.2 Service level requirements</h3>
<p>The Contractor shall meet the following service levels, measured monthly. Failure to meet a service level
in two consecutive months shall require a corrective action plan within ten (10) business days.</p>
<table>
<tr><th>ID</th><th>Service level</th><th>Target</th></tr>
<tr><td>SL-1</td><td>Telephone calls answered within 60 seconds</td><td>85%</td></tr>
<tr><td>SL-2</td><td>Call abandonment rate</td><td>below 5%</td></tr>
<tr><td>SL-3</td><td>First contact resolution for incidents</td><td>70%</td></tr>
<tr><td>SL-4</td><td>Priority 1 incidents restored within 4 hours</td><td>95%</td></tr>
<tr><td>SL-5</td><td>Priority 3 incidents resolved within 3 business days</td><td>90%</td></tr>
<tr><td>SL-6</td><td>Customer satisfaction score (surveyed tickets)</td><td>4.3 out of 5</td></tr>
</table>
<h3>3.3 Personnel requirements</h3>
<p class="req">R-05. The Contractor shall designate a full-time Contract Manager who will be the
County&#8217;s single point of contact for contract performance and who must have at least five (5) years of
experience managing IT service desk contracts of similar size.</p>
<p class="req">R-06. All technicians assigned on site must hold a current CompTIA A+ certification or
equivalent, and the service desk manager must hold ITIL 4 Foundation certification or higher.</p>
<p class="req">R-07. Personnel with access to the Public Safety Center or criminal justice information must
pass a fingerprint-based background check in accordance with the FBI CJIS Security Policy before starting
work.</p>
<h3>3.4 Security requirements</h3>
<p class="req">R-08. The Contractor shall comply with the County&#8217;s Information Security Policy and shall
report any suspected security incident involving County systems or data to the County within one (1) hour
of discovery.</p>
<p class="req">R-09. Remote access to County systems must use the County-provided VPN with multi-factor
authentication. The Contractor must not install remote-control software that has not been approved by
OIT.</p>

<h2 style="page-break-before: always">SECTION 4: SPECIFICATIONS</h2>
<h3>4.1 Standard device images</h3>
<p>The Contractor shall build and maintain standard images for the device models below, and shall update
each image at least quarterly with current security patches.</p>
<table>
<tr><th>Device class</th><th>Current standard model</th><th>Operating system</th><th class="num">Approx. units</th></tr>
<tr><td>Standard laptop</td><td>14-inch business laptop, 16 GB RAM, 512 GB SSD</td><td>Windows 11 Enterprise 23H2</td><td class="num">1,900</td></tr>
<tr><td>Desktop</td><td>Small form factor, 16 GB RAM, 256 GB SSD</td><td>Windows 11 Enterprise 23H2</td><td class="num">750</td></tr>
<tr><td>Field tablet</td><td>10.9-inch tablet, cellular</td><td>iPadOS 17, managed by Intune</td><td class="num">420</td></tr>
<tr><td>Ruggedized laptop (Sheriff)</td><td>Fully rugged 14-inch laptop</td><td>Windows 11 Enterprise 23H2</td><td class="num">85</td></tr>
</table>
<h3>4.2 Reporting</h3>
<p>The Contractor shall deliver a monthly performance report by the tenth (10th) business day of each month,
covering service level performance, ticket volumes by category and site, the top ten recurring incident
causes, customer satisfaction results, and asset inventory changes. Reports must be delivered in both PDF
and machine-readable CSV format.</p>
<h3>4.3 Knowledge base</h3>
<p>The Contractor shall maintain knowledge articles in the County&#8217;s ServiceNow knowledge base for all
repeatable resolutions and shall review every article at least once every twelve (12) months.</p>

<h2>SECTION 5: PRICING</h2>
<p>Offerors shall complete the pricing schedule below for the base period. Prices for CLINs 0001 through
0003 are firm fixed prices and shall include all labor, tools, travel within the County, overhead and
profit. CLIN 0004 and CLIN 0005 are optional time-and-materials line items that the County may order by
written task order. Prices for the option years shall be provided on the same basis in Attachment C.</p>
<table>
<tr><th>CLIN</th><th>Description</th><th>Unit</th><th class="num">Est. quantity</th><th class="num">Unit price</th><th class="num">Extended price</th></tr>
<tr><td>0001</td><td>Transition-in services (one time, firm fixed price)</td><td>Lot</td><td class="num">1</td><td class="num">$ ______</td><td class="num">$ ______</td></tr>
<tr><td>0002</td><td>Service desk operations, including after-hours on-call support</td><td>Month</td><td class="num">36</td><td class="num">$ ______</td><td class="num">$ ______</td></tr>
<tr><td>0003</td><td>Desktop, field support and IT asset management</td><td>Month</td><td class="num">36</td><td class="num">$ ______</td><td class="num">$ ______</td></tr>
<tr><td>0004</td><td>Optional: device refresh deployment (time and materials)</td><td>Device</td><td class="num">2,600</td><td class="num">$ ______</td><td class="num">$ ______</td></tr>
<tr><td>0005</td><td>Optional: project technician (time and materials)</td><td>Hour</td><td class="num">1,000</td><td class="num">$ ______</td><td class="num">$ ______</td></tr>
<tr><td colspan="5"><b>Total evaluated price (CLINs 0001 to 0005)</b></td><td class="num">$ ______</td></tr>
</table>
<p>The estimated quantities are for evaluation purposes only and do not guarantee any minimum order. The
total evaluated price is the sum of the extended prices for the base period and the option years.</p>

<h2>SECTION 6: EVALUATION CRITERIA</h2>
<p>Proposals will be evaluated by a committee of County staff using the criteria and weights below. The
County will award the contract to the responsive and responsible Offeror whose proposal is most
advantageous to the County, price and other factors considered.</p>
<table>
<tr><th>Criterion</th><th>What will be assessed</th><th class="num">Weight (points)</th></tr>
<tr><td>Technical approach</td><td>Understanding of the scope, service delivery model, tools, transition plan</td><td class="num">35</td></tr>
<tr><td>Price</td><td>Total evaluated price for the base period and option years</td><td class="num">30</td></tr>
<tr><td>Past performance</td><td>Three references for contracts of similar size and complexity within the last five years</td><td class="num">20</td></tr>
<tr><td>Key personnel and staffing</td><td>Qualifications of the Contract Manager and service desk manager, staffing plan</td><td class="num">15</td></tr>
<tr><td colspan="2"><b>Total</b></td><td class="num"><b>100</b></td></tr>
</table>
<p>Price points will be awarded by formula: the lowest total evaluated price receives 30 points, and each
other proposal receives 30 points multiplied by the lowest price divided by its price. The County may
invite up to three (3) highest-ranked Offerors to give oral presentations, which may be used to adjust the
technical and staffing scores.</p>

<h2>SECTION 7: TERMS AND CONDITIONS</h2>
<h3>7.1 Insurance</h3>
<p>The Contractor shall maintain, for the full term of the contract, commercial general liability insurance
of at least $1,000,000 per occurrence and $2,000,000 in the aggregate, professional liability (errors and
omissions) insurance of at least $2,000,000, and cyber liability insurance of at least $5,000,000. The County
shall be named as an additional insured on the general liability policy.</p>
<h3>7.2 Invoicing and payment</h3>
<p>The Contractor shall invoice monthly in arrears. The County will pay undisputed invoices within thirty
(30) days of receipt in accordance with the County&#8217;s prompt payment ordinance. Service level credits,
if any, shall be shown as deductions on the invoice for the month following the shortfall.</p>
<h3>7.3 Termination</h3>
<p>The County may terminate the contract for convenience on thirty (30) days&#8217; written notice, or for
cause if the Contractor fails to cure a material breach within fifteen (15) days of written notice.</p>
<h3>7.4 Public records</h3>
<p>Proposals become public records after contract award. Offerors must clearly mark any pages they consider
to contain trade secrets; marking an entire proposal as confidential is not acceptable.</p>

<h2>SECTION 8: PROPOSAL SUBMISSION</h2>
<h3>8.1 Submission</h3>
<p>Proposals must be submitted electronically through the County&#8217;s eProcurement portal no later than
2:00 p.m. Central Time on March 17, 2025. Late proposals will not be accepted. The technical proposal shall
not exceed thirty (30) pages, excluding resumes and the completed pricing schedule, which must be submitted
as a separate file. Proposals must remain valid for one hundred twenty (120) days after the due date.</p>
<h3>8.2 Proposal contents</h3>
<p>Proposals shall be organized in the following order, with each part clearly labeled:</p>
<ol>
<li>Cover letter signed by an officer authorized to bind the Offeror, acknowledging all addenda.</li>
<li>Executive summary of no more than two (2) pages.</li>
<li>Technical approach, responding to each requirement in Section 3 by its identifier (R-01 to R-09 and
SL-1 to SL-6), and describing:
  <ul>
  <li>the service desk operating model, tools and escalation paths;</li>
  <li>the approach to on-site and dispatched field support; and</li>
  <li>continuous improvement and knowledge management practices.</li>
  </ul></li>
<li>Transition plan with milestones, risks and the support expected from County staff.</li>
<li>Staffing plan, organization chart and resumes of key personnel.</li>
<li>Three (3) past performance references with contact details.</li>
<li>Completed pricing schedule for CLINs 0001 to 0005, submitted as a separate file.</li>
<li>Certificate of insurance, or a letter from an insurer confirming the coverage in Section 7.1.</li>
</ol>
<h3>8.3 Questions and addenda</h3>
<p>Questions about this solicitation must be submitted in writing to the issuing officer by the deadline in
the schedule of events. Answers will be published to all prospective Offerors as an addendum without
identifying the source of the question. Only answers issued by addendum are binding on the County.</p>
"""

QUESTIONS = (
    Question("rfp-01", "When are proposals due?",
             "no later than 2:00 p.m. Central Time on March 17, 2025"),
    Question("rfp-02", "What is the deadline for submitting written questions?",
             "Deadline for written questions"),
    Question("rfp-03", "How long is the initial contract term?",
             "The initial contract term is three (3) years from the contract start date"),
    Question("rfp-04", "What percentage of calls must be answered within 60 seconds?",
             "Telephone calls answered within 60 seconds"),
    Question("rfp-05", "What certification must on-site technicians hold?",
             "must hold a current CompTIA A+ certification or equivalent"),
    Question("rfp-06", "How quickly must a suspected security incident be reported?",
             "within one (1) hour of discovery"),
    Question("rfp-07", "Which CLIN covers transition-in services?",
             "Transition-in services (one time, firm fixed price)"),
    Question("rfp-08", "What weight does price carry in the evaluation?",
             "Total evaluated price for the base period and option years"),
    Question("rfp-09", "How are price points calculated?",
             "the lowest total evaluated price receives 30 points"),
    Question("rfp-10", "How much cyber liability insurance is required?",
             "cyber liability insurance of at least $5,000,000"),
    Question("rfp-11", "What is the page limit for the technical proposal?",
             "The technical proposal shall not exceed thirty (30) pages"),
    Question("rfp-12", "How many devices are in the County's environment?",
             "approximately 2,650 Windows laptops and desktops"),
)

SAMPLE = Sample(
    name="rfp_it_services",
    title="RFP No. RC-OIT-2025-031 Managed Service Desk and End-User Support Services",
    subject="Request for proposals issued by a fictional county government",
    paper="letter",
    css=CSS,
    html=HTML,
    header_left="Riverbend County RFP No. RC-OIT-2025-031",
    header_right="Managed Service Desk and End-User Support Services",
    footer_left="Fictional sample solicitation",
    questions=QUESTIONS,
)
