import { ArrowLeft, CheckCircle2, Clock, Headphones, Mail, ShieldCheck } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { ContactForm } from "../../components/ContactForm";
import { SiteHeader } from "../../components/SiteHeader";

const PROMISES = [
  { icon: Clock, title: "Reply within 24 hours", text: "Every message is read by a person on our team, usually the same business day." },
  { icon: Headphones, title: "Setup help included", text: "Tell us your domains and we'll walk you through SPF, DKIM and DMARC step by step." },
  { icon: ShieldCheck, title: "Your details stay private", text: "We use your contact details only to answer your message." },
];

/** /contact (SPEC §2): the contact form; on success a confirmation with Return to Home. */
export default function ContactPage() {
  const [sent, setSent] = useState(false);
  return (
    <div className="min-h-screen bg-base-200">
      <SiteHeader>
        <Link to="/" className="btn btn-ghost btn-sm whitespace-nowrap">
          <ArrowLeft className="h-4 w-4" aria-hidden />
          Back to Home
        </Link>
        <Link to="/trial" className="btn btn-primary btn-sm whitespace-nowrap">
          Start Free Trial
        </Link>
      </SiteHeader>
      <main className="mx-auto max-w-6xl px-4 py-10 sm:px-6 sm:py-14">
        {sent ? (
          <section className="card mx-auto max-w-lg bg-base-100 shadow-sm" aria-live="polite">
            <div className="card-body items-center gap-4 py-12 text-center">
              <CheckCircle2 className="h-16 w-16 text-success" aria-hidden />
              <h1 className="text-3xl font-bold">Message Sent</h1>
              <p className="opacity-70">Thank you for contacting us. We'll get back to you within 24 hours.</p>
              <Link to="/" className="btn btn-primary mt-2">
                Return to Home
              </Link>
            </div>
          </section>
        ) : (
          <div className="grid gap-8 lg:grid-cols-[1fr_1.6fr] lg:gap-12">
            <section>
              <p className="badge badge-primary badge-soft mb-4 gap-1">
                <Mail className="h-3.5 w-3.5" aria-hidden /> Contact
              </p>
              <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">Contact Us</h1>
              <p className="mt-3 text-lg opacity-70">
                Questions about DMARC, pricing or protecting your domains from spoofing? Send us a message and our email security team will help.
              </p>
              <ul className="mt-8 grid gap-5">
                {PROMISES.map(({ icon: Icon, title, text }) => (
                  <li key={title} className="flex gap-4">
                    <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-box bg-primary/10 text-primary">
                      <Icon className="h-5 w-5" aria-hidden />
                    </span>
                    <div>
                      <p className="font-semibold">{title}</p>
                      <p className="text-sm opacity-70">{text}</p>
                    </div>
                  </li>
                ))}
              </ul>
            </section>
            <section className="card bg-base-100 shadow-sm" aria-labelledby="contact-form-title">
              <div className="card-body p-5 sm:p-8">
                <h2 id="contact-form-title" className="mb-2 text-xl font-semibold">
                  Send Us a Message
                </h2>
                <ContactForm onSent={() => setSent(true)} />
              </div>
            </section>
          </div>
        )}
      </main>
    </div>
  );
}
