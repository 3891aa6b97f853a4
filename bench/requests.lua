-- wrk script: POST one prepared request after another. Each line of the file given after `--`
-- is "path<TAB>header: value|header: value<TAB>body"; lines are dealt to wrk's threads in
-- turn, so no two threads send the same one (a customer reserves once, a code is scanned in
-- its order). Responses whose status is not the expected one are counted.
--   wrk -s requests.lua URL -- FILE THREADS EXPECTED-STATUS

local created = 0
local all = {}

function setup(thread)
  thread:set("tid", created)
  created = created + 1
  table.insert(all, thread)
end

local lines = {}
local index = 0
unexpected = 0
sent = 0

local function split(text, separator)
  local parts = {}
  for part in string.gmatch(text, "([^" .. separator .. "]+)") do table.insert(parts, part) end
  return parts
end

function init(args)
  local threads = tonumber(args[2])
  expected = tonumber(args[3])
  local n = 0
  for line in io.lines(args[1]) do
    if n % threads == tid then
      local fields = split(line, "\t")
      local headers = {}
      for _, header in ipairs(split(fields[2], "|")) do
        local name, value = string.match(header, "^([^:]+):%s*(.*)$")
        headers[name] = value
      end
      table.insert(lines, wrk.format("POST", fields[1], headers, fields[3]))
    end
    n = n + 1
  end
end

function request()
  index = index % #lines + 1
  sent = sent + 1
  return lines[index]
end

function response(status, headers, body)
  if status ~= expected then unexpected = unexpected + 1 end
end

function done(summary, latency, requests)
  local total, wrong = 0, 0
  for _, thread in ipairs(all) do
    total = total + thread:get("sent")
    wrong = wrong + thread:get("unexpected")
  end
  io.write(string.format("BENCH sent=%d unexpected=%d\n", total, wrong))
end
