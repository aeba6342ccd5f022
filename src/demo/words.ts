/** The vocabulary of demo data: names, group themes and what people say. Small lists, combined for variety. */

export const FIRST_NAMES = [
  "Emma", "Liam", "Olivia", "Noah", "Ava", "Lucas", "Mia", "Ethan", "Sofia", "Mateo", "Amara", "Kenji", "Priya",
  "Omar", "Chloe", "Leo", "Zara", "Hugo", "Nina", "Arjun", "Isla", "Diego", "Yuki", "Samir", "Elena", "Felix",
  "Hana", "Tomás", "Grace", "Malik", "Lea", "Ravi", "Clara", "Jonas", "Aisha", "Marco", "Freya", "Kofi", "Ingrid",
  "Pablo", "Mei", "Oscar", "Leila", "Anton", "Rosa", "Daniel", "Sara", "Theo", "Noor", "Ivan",
];

export const LAST_NAMES = [
  "Garcia", "Smith", "Nakamura", "Okafor", "Müller", "Rossi", "Kowalski", "Haddad", "Johansson", "Silva", "Chen",
  "Patel", "Dubois", "Novak", "Kim", "Mensah", "Larsen", "Moreau", "Fischer", "Alvarez", "Tanaka", "Ivanova",
  "O'Brien", "Nguyen", "Schmidt", "Costa", "Hughes", "Sato", "Bianchi", "Ahmed", "Walker", "Lindqvist", "Reyes",
  "Kaur", "Weber", "Santos", "Murphy", "Yilmaz", "Andersen", "Park",
];

export const GROUP_TOPICS = [
  "Design", "Marketing", "Frontend", "Backend", "Support", "Sales", "Hiking", "Book Club", "Running", "Photography",
  "Product", "Coffee", "Gaming", "Music", "Travel", "Recipes", "Mobile", "Data", "Ops", "Parents", "Yoga",
  "Cycling", "Movie Night", "Launch", "Hiring", "Security", "Garden", "Football", "Chess", "Language Exchange",
];

export const GROUP_KINDS = ["Team", "Crew", "Club", "Squad", "Lounge", "Circle", "Hangout", "Guild", "Room", "Corner"];

export const DESCRIPTIONS = [
  "Where we plan, share and celebrate.",
  "Daily chatter, links and the occasional meme.",
  "Questions welcome, answers appreciated.",
  "Updates, ideas and weekend plans.",
  "Be kind, stay on topic, have fun.",
];

export const TEXTS = [
  "Hey! How's it going?",
  "Are we still on for tomorrow?",
  "Just pushed the latest changes, can you take a look?",
  "Sounds good to me 👍",
  "I'll be there in ten minutes.",
  "Did you see the new designs?",
  "Thanks for the help earlier!",
  "Can we move the meeting to 3pm?",
  "Running a bit late, sorry!",
  "That's hilarious 😂",
  "Let me check and get back to you.",
  "Happy Friday everyone! 🎉",
  "Who's joining for lunch?",
  "The build is green again.",
  "Great job on the release, team!",
  "Any recommendations for a good book?",
  "I'm out of office on Monday.",
  "Can someone share the link to the doc?",
  "Here's the summary from today's call.",
  "Let's keep this thread for questions.",
  "Welcome aboard! 👋",
  "I think we should ship it as is.",
  "Coffee break? ☕",
  "What time works for everyone?",
  "Just landed, will call you later.",
  "Love this idea!",
  "Can you review my pull request when you have a minute?",
  "Reminder: standup in 5 minutes.",
  "The weather is perfect for a hike this weekend.",
  "Booked the tickets 🎟️",
  "No worries, take your time.",
  "I've updated the spreadsheet.",
  "Does anyone have a charger I can borrow?",
  "Congrats!! 🥳",
  "Looks like the API is back up.",
  "On my way.",
  "Good morning! ☀️",
  "Let's catch up next week.",
  "I'll send the photos tonight.",
  "Agreed, let's do that.",
];

export const REPLIES = ["+1", "Agreed!", "Good point.", "Done ✅", "Thanks!", "On it.", "Same here.", "Makes sense.", "Haha yes", "Will do."];

export const REACTIONS = ["👍", "❤️", "😂", "🎉", "😮", "🙏", "🔥", "👀"];

export const CITIES: [string, number, number][] = [
  ["Lisbon", 38.7223, -9.1393],
  ["Berlin", 52.52, 13.405],
  ["Tokyo", 35.6762, 139.6503],
  ["Nairobi", -1.2921, 36.8219],
  ["Toronto", 43.6532, -79.3832],
  ["São Paulo", -23.5558, -46.6396],
];

/** Avatar background colours. */
export const COLOURS = ["#e57373", "#f06292", "#ba68c8", "#7986cb", "#4fc3f7", "#4db6ac", "#81c784", "#ffb74d", "#a1887f", "#90a4ae"];
