-- Argo CD health of a SweepRun (resource.customizations.health.eval.sweep.dev_SweepRun),
-- read from the kstatus conditions the operator writes. A campaign is Healthy only when it is
-- complete with a final score, so a sync wave or an app waiting on it waits for the results.
local hs = {status = "Progressing", message = "waiting for the operator to observe this generation"}
if obj.status == nil or obj.status.observedGeneration == nil then
  return hs
end
if obj.metadata.generation ~= nil and obj.status.observedGeneration < obj.metadata.generation then
  return hs
end
local conditions = {}
if obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    conditions[c.type] = c
  end
end
local function isTrue(kind)
  return conditions[kind] ~= nil and conditions[kind].status == "True"
end
local function messageOf(kind, fallback)
  if conditions[kind] ~= nil and conditions[kind].message ~= nil and conditions[kind].message ~= "" then
    return conditions[kind].message
  end
  return fallback
end
-- A stalled or failed campaign can end Ready (nothing measured): Degraded comes first, so it
-- is never reported Healthy.
if isTrue("Stalled") then
  hs.status = "Degraded"
  hs.message = messageOf("Stalled", "the campaign cannot progress")
elseif isTrue("Failed") then
  hs.status = "Degraded"
  hs.message = messageOf("Failed", "the campaign failed")
elseif isTrue("Ready") then
  hs.status = "Healthy"
  hs.message = messageOf("Complete", messageOf("Ready", "complete"))
elseif isTrue("Suspended") then
  hs.status = "Suspended"
  hs.message = messageOf("Suspended", "spec.suspend is true")
else
  hs.message = messageOf("Ready", messageOf("Progressing", "trials are running"))
end
return hs
