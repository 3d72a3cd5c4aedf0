// Walkthrough types: the walkthrough with its answers, photos, issues, scores and score bands, the
// survey it follows with the resolved heat map ranges, and the linked work orders.
import { builder } from "../core/builder.ts";
import { pageType } from "../core/list.ts";
import { WorkOrderRef } from "../work-orders/public.ts";
import { bandOf, linkedWorkOrders, resolveRanges, type HeatMapBand } from "./rules.ts";

const HeatMapBandRef = builder.objectRef<HeatMapBand>("HeatMapBand").implement({
  description: "A band of the heat map: from lowerRange up to the next band's lowerRange",
  fields: (t) => ({
    color: t.exposeString("color", { description: "Typically hex, e.g. #43a047" }),
    lowerRange: t.exposeFloat("lowerRange", { description: "Lowest score of the band" }),
  }),
});

const ScoreBandRef = builder.objectRef<{ score: number; band: HeatMapBand | null }>("WalkthroughScoreBand").implement({
  description:
    "A score with its band: the band with the highest lowerRange ≤ score (null below every band, or without ranges)",
  fields: (t) => ({
    score: t.exposeFloat("score", { description: "The score as recorded on the walkthrough" }),
    color: t.string({
      nullable: true,
      resolve: (s) => s.band?.color ?? null,
      description: "Color of the score's band; null when the score is below every band or there are no ranges",
    }),
    lowerRange: t.float({
      nullable: true,
      resolve: (s) => s.band?.lowerRange ?? null,
      description: "Lowest score of the score's band; null when the score is below every band or there are no ranges",
    }),
  }),
});

const RANGES_SELECT = { heatMapRanges: true, template: { select: { heatMapRanges: true } } } as const;

builder.prismaObject("SiteSurveyTask", {
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The task's id (a work order's siteSurveyTaskTitleId)" }),
    title: t.exposeString("title", { description: "The task's title, as shown to the surveyor" }),
  }),
  description: "A task (question) of a site survey that a walkthrough answers",
});

builder.prismaObject("SiteSurvey", {
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The survey's id" }),
    name: t.exposeString("name", { description: "Display name of the survey" }),
    templateId: t.exposeInt("templateId", {
      nullable: true,
      description: "Id of the survey template it derives from (heat map ranges fall back to it); null when none",
    }),
    walkthroughHeatMapRanges: t.field({
      type: [HeatMapBandRef],
      nullable: true,
      description:
        "The survey's heat map ranges, else its template's, resolved at read time (sorted by lowerRange); null when neither has any",
      select: RANGES_SELECT,
      resolve: (survey) => resolveRanges(survey),
    }),
    tasks: t.relation("tasks", { query: { orderBy: { id: "asc" } }, description: "The survey's tasks, by id" }),
  }),
  description: "The survey a walkthrough follows: its tasks and the heat map that colors its scores",
});

builder.prismaObject("WalkthroughAnswer", {
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The answer's id" }),
    taskId: t.exposeInt("taskId", {
      description: "The survey task; siteSurveyTaskTitleId of a work order created for it",
    }),
    taskTitle: t.string({
      select: { task: { select: { title: true } } },
      resolve: (a) => a.task.title,
      description: "Title of the task answered",
    }),
    answer: t.exposeString("answer", { description: "The answer given (free text)" }),
    photos: t.exposeStringList("photos", { description: "Photo URLs" }),
  }),
  description: "The answer a walkthrough gave to one task of its survey, with photos",
});

builder.prismaObject("WalkthroughIssue", {
  description: "A problem found on the walkthrough, optionally at one task",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The issue's id" }),
    taskId: t.exposeInt("taskId", {
      nullable: true,
      description: "Id of the survey task the issue was found at; null when it concerns the whole walkthrough",
    }),
    title: t.exposeString("title", { description: "Short title of the issue" }),
    description: t.exposeString("description", {
      nullable: true,
      description: "Longer description of the issue; null when none",
    }),
    severity: t.exposeString("severity", {
      nullable: true,
      description: "Severity the surveyor gave (free text); null when not given",
    }),
    photos: t.exposeStringList("photos", { description: "Photo URLs" }),
  }),
});

const CompletedByRef = builder
  .objectRef<{ id: number; email: string; nameGiven: string; nameFamily: string }>("WalkthroughContact")
  .implement({
    description: "The contact who completed a walkthrough",
    fields: (t) => ({
      id: t.exposeInt("id", { description: "The contact's id" }),
      email: t.exposeString("email", { description: "The contact's email" }),
      name: t.string({
        resolve: (c) => `${c.nameGiven} ${c.nameFamily}`.trim(),
        description: "The contact's full name (given and family)",
      }),
    }),
  });

export const WalkthroughRef = builder.prismaObject("Walkthrough", {
  description: "A completed site survey walkthrough (read-only); see docs/walkthroughs.md",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The walkthrough's id" }),
    locationId: t.exposeInt("locationId", { description: "Id of the location surveyed" }),
    surveyId: t.exposeInt("surveyId", { description: "Id of the survey followed" }),
    completedAt: t.expose("completedAt", { type: "DateTime", description: "When the walkthrough was completed" }),
    completedBy: t.field({
      description: "Who completed the walkthrough; null when not recorded",
      type: CompletedByRef,
      nullable: true,
      select: { completedBy: { select: { id: true, email: true, nameGiven: true, nameFamily: true } } },
      resolve: (w) => w.completedBy,
    }),
    scores: t.exposeIntList("scores", {
      description: "The walkthrough's scores (color each with scoreBands, or by the survey's walkthroughHeatMapRanges)",
    }),
    scoreBands: t.field({
      type: [ScoreBandRef],
      description:
        "Helper: each score (in the order of scores) with its heat map band, by the rule highest lowerRange ≤ score",
      select: { survey: { select: RANGES_SELECT } },
      resolve: (w) => {
        const bands = resolveRanges(w.survey);
        return w.scores.map((score) => ({ score, band: bandOf(score, bands) }));
      },
    }),
    notes: t.exposeString("notes", { nullable: true, description: "The surveyor's notes; null when none" }),
    photos: t.exposeStringList("photos", { description: "Photo URLs of the walkthrough as a whole" }),
    answers: t.relation("answers", {
      description: "Task answers, by task",
      query: { orderBy: [{ taskId: "asc" }, { id: "asc" }] },
    }),
    issues: t.relation("issues", {
      query: { orderBy: { id: "asc" } },
      description: "Problems found on the walkthrough, by id",
    }),
    siteSurvey: t.relation("survey", {
      description: "The survey followed, with its tasks and resolved heat map ranges",
    }),
    workOrders: t.field({
      type: [WorkOrderRef],
      description: "Work orders created from this walkthrough (walkThroughId) that the key may read",
      resolve: (w, _args, ctx) => linkedWorkOrders(ctx, w.id),
    }),
    location: t.relation("location", { subGraphs: ["graphql"], description: "The location surveyed" }),
  }),
});

export const WalkthroughPage = pageType("Walkthrough", WalkthroughRef);
