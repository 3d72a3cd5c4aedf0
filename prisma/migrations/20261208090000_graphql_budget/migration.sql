-- A GraphQL key spends points (the operation's cost) from a budget per window instead of REST's request
-- count (docs/api.md, "GraphQL cost and budget"). Both columns null: the default budget. Set by the
-- operator like the REST rate limit (keys issue --graphql-budget, a fixture key's graphqlBudget).
-- The viewer_change trigger on "ApiKey" (AFTER UPDATE) already tells every instance's key cache.
ALTER TABLE "ApiKey" ADD COLUMN "graphqlBudgetPoints" INTEGER, ADD COLUMN "graphqlBudgetWindowSeconds" INTEGER;
